# shellcheck shell=bash
# The host-side shell tests' common start, sourced: a scratch directory
# $dir removed on exit, and PASS/FAIL lines, a FAIL setting $failed.
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
failed=0
pass() { echo "PASS $1"; }
fail() { echo "FAIL $1: $2"; failed=1; }
