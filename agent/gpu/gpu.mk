# SPDX-License-Identifier: GPL-2.0
#
# The GPU tier (agent/gpu/, see gpu.h): built into indigod and into
# build/indigo-gpu. The CUDA driver is loaded at run time, so only cuda.h
# is needed to build it: from $(CUDA_HOME)/include when there, otherwise
# the backend is left out (gpu_tier_start() then says so) and everything
# else, tests included, is built as usual.

# Rules below must not become make's default goal: that stays the top's.
ifeq ($(.DEFAULT_GOAL),)
.DEFAULT_GOAL := all
endif

CUDA_HOME ?= /usr/local/cuda
GPU_LIB := $(addprefix agent/gpu/,backend.c cuerr.c gpu.c gpuconfig.c probe.c tiers.c topo.c)
GPU_HDR := $(wildcard agent/gpu/*.h)
ifneq ($(wildcard $(CUDA_HOME)/include/cuda.h),)
GPU_CUDA := 1
# -idirafter: cuda.h's directory never shadows the project's headers
GPU_DEFS := -DINDIGO_GPU=1 -idirafter $(CUDA_HOME)/include
GPU_LIB += agent/gpu/driver.c
else
GPU_CUDA :=
GPU_DEFS :=
ifeq ($(MAKELEVEL),0)
$(info GPU backend left out: no cuda.h under $(CUDA_HOME)/include)
endif
endif
GPU_CFLAGS := $(GPU_DEFS) -Iagent/gpu -Iagent/policy -Iinclude/uapi $(shell pkg-config --cflags json-c 2>/dev/null)
GPU_LIBS := -ldl -lnuma $(shell pkg-config --libs json-c 2>/dev/null) -lm
# The tool and tests link the one piece of the agent the tier uses
GPU_LINK := $(GPU_LIB) agent/policy/costmodel.c agent/policy/num.c

PROGS += $(B)/indigo-gpu
INDIGOD_SRC += $(GPU_LIB)
INDIGOD_CFLAGS += $(GPU_DEFS)
INDIGOD_LIBS += -ldl
INDIGOD_DEPS += $(GPU_HDR)
CHECK_MORE += check-gpu

$(B)/indigo-gpu: agent/gpu/indigo-gpu.c $(GPU_LINK) $(GPU_HDR) agent/policy/costmodel.h | $(B)
	$(CC) $(CFLAGS_U) $(GPU_CFLAGS) $(filter %.c,$^) $(GPU_LIBS) -o $@

# Tests: Check, plain, under ASan/UBSan and under valgrind, as check-unit.
# test_driver needs cuda.h (for its stand-in libcuda), the others nothing.
GPU_T_SRC := $(wildcard tests/gpu/test_*.c)
ifeq ($(GPU_CUDA),)
GPU_T_SRC := $(filter-out tests/gpu/test_driver.c,$(GPU_T_SRC))
endif
GPU_T := $(patsubst tests/gpu/%.c,$(B)/gpu-tests/%,$(GPU_T_SRC))
GPU_T_SAN := $(patsubst tests/gpu/%.c,$(B)/gpu-tests-san/%,$(GPU_T_SRC))
GPU_T_DEPS := tests/unit/check_main.h $(wildcard tests/gpu/*.h) $(GPU_LINK) $(GPU_HDR)
GPU_T_CFLAGS := -g $(WARN) -D_GNU_SOURCE -Itests/unit -Itests/gpu -I$(B)/gpu-tests \
	$(GPU_CFLAGS) $(CHECK_CFLAGS)
GPU_T_LIBS := $(CHECK_LIBS) $(GPU_LIBS)
GPU_SAN := -fsanitize=address,undefined -fno-sanitize-recover=all

ifneq ($(GPU_CUDA),)
# A stand-in libcuda for the driver's tests, and cuda.h's list of CUresult
# codes, which the error table must cover.
GPU_FAKE := $(B)/gpu-tests/libfakecuda.so
GPU_CODES := $(B)/gpu-tests/cuda_codes.h
$(GPU_FAKE): tests/gpu/fakecuda.c | $(B)/gpu-tests
	$(CC) -O1 -g $(WARN) -D_GNU_SOURCE -fPIC -shared $(GPU_DEFS) $< -lnuma -o $@
# A driver that cannot load: it needs a library that is gone (test_driver.c)
GPU_NODEP := $(B)/gpu-tests/libindigo-needsgone.so
$(GPU_NODEP): | $(B)/gpu-tests
	mkdir -p $(@D)/gone
	echo 'int gone;' | $(CC) -x c -shared -fPIC - -o $(@D)/gone/libindigo-gone.so
	echo 'extern int gone; int *use = &gone;' | \
		$(CC) -x c -shared -fPIC - -L$(@D)/gone -lindigo-gone -o $@
	rm -r $(@D)/gone
$(GPU_CODES): $(CUDA_HOME)/include/cuda.h | $(B)/gpu-tests
	sed -n '/typedef enum cudaError_enum/,/} CUresult;/s/^ *\(CUDA_[A-Z0-9_]*\) *= *[0-9].*/X(\1)/p' $< >$@.tmp
	test -s $@.tmp && mv $@.tmp $@
# driver.c must build with any cuda.h from 11.0 on, not just the one found:
# compiled against that one made into a 12.6-like one, which lacks
# cuEventElapsedTime_v2 (12.8), the newest name driver.c looks up.
GPU_OLD_H := $(B)/gpu-tests/cuda-12.6/cuda.h
GPU_OLD_O := $(B)/gpu-tests/driver-cuda-12.6.o
$(GPU_OLD_H): $(CUDA_HOME)/include/cuda.h | $(B)/gpu-tests
	mkdir -p $(@D)
	sed -e '/cuEventElapsedTime_v2/d' \
		-e 's/^#define CUDA_VERSION [0-9]*$$/#define CUDA_VERSION 12060/' $< >$@.tmp
	grep -q '^#define CUDA_VERSION 12060$$' $@.tmp && mv $@.tmp $@
$(GPU_OLD_O): agent/gpu/driver.c $(GPU_HDR) $(GPU_OLD_H)
	$(CC) -c $(WARN) -D_GNU_SOURCE -DINDIGO_GPU=1 -idirafter $(dir $(GPU_OLD_H)) \
		-Iagent/gpu $< -o $@
endif

$(B)/gpu-tests $(B)/gpu-tests-san:
	mkdir -p $@

$(B)/gpu-tests/%: tests/gpu/%.c $(GPU_T_DEPS) $(GPU_CODES) $(GPU_NODEP) | $(B)/gpu-tests
	$(CC) -O1 $(GPU_T_CFLAGS) $< $(GPU_LINK) $(GPU_T_LIBS) -o $@

$(B)/gpu-tests-san/%: tests/gpu/%.c $(GPU_T_DEPS) $(GPU_CODES) $(GPU_NODEP) | $(B)/gpu-tests-san
	$(CC) -O1 $(GPU_SAN) $(GPU_T_CFLAGS) $< $(GPU_LINK) $(GPU_T_LIBS) -o $@

.PHONY: check-gpu
check-gpu: $(GPU_T) $(GPU_T_SAN) $(GPU_FAKE) $(GPU_OLD_O) $(B)/indigo-gpu
	@set -e; export INDIGO_FAKECUDA=$(if $(GPU_FAKE),$(abspath $(GPU_FAKE))); \
	for t in $(GPU_T); do echo "== $$t"; $$t; done; \
	for t in $(GPU_T_SAN); do echo "== $$t (ASan/UBSan)"; CK_FORK=no $$t; done; \
	for t in $(GPU_T); do echo "== $$t (valgrind)"; \
		CK_FORK=no valgrind -q --leak-check=full --errors-for-leak-kinds=all \
		--suppressions=tests/gpu/valgrind.supp --error-exitcode=1 $$t; done
	INDIGO_FAKECUDA=$(if $(GPU_FAKE),$(abspath $(GPU_FAKE))) \
		tests/gpu/tool-nogpu.sh $(B)/indigo-gpu
# and the build device-check.sh makes to carry to a GPU host that cannot build
ifneq ($(GPU_CUDA),)
	CUDA_HOME=$(CUDA_HOME) tests/gpu/device-check.sh --build-portable
	INDIGO_FAKECUDA=$(abspath $(GPU_FAKE)) \
		tests/gpu/tool-nogpu.sh build/indigo-gpu-portable
endif
