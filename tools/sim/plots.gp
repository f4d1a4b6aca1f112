# The table's plots (make bench-sim runs this in tools/bench/results):
# sim-stall.png from sim-stall.dat, sim-phase.png from sim-phase.dat.
set terminal pngcairo size 1200,520 noenhanced font ",10"
# nine series: the default palette has eight colours
set linetype 8 lc rgb "gray40"
set linetype 9 lc rgb "black"

set output "sim-stall.png"
set title "Stall time over the oracle's, local memory 25 % of the working set, contender on 50 % of the link"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set logscale y 2
set yrange [0.9:*]
set ylabel "stall / oracle (log scale)"
set key outside right top
set grid ytics
plot for [c=2:10] "sim-stall.dat" using c:xtic(1) title columnheader(c)

reset
set terminal pngcairo size 1200,700 noenhanced font ",10"
set output "sim-phase.png"
set multiplot layout 2,1 title "Bandit on the phase workload (hot set moves every quarter), local 25 %, contention 50 %"
set ylabel "rate threshold, mHz"
set logscale y 10
set yrange [5000:2e7]
set y2label "burst threshold, ms"
set y2range [-1:12]
set y2tics
set xlabel "epoch"
set key top left
set grid
plot "sim-phase.dat" using 1:3 with steps lw 2 title "rate_min (mHz)", \
     "" using 1:4 axes x1y2 with steps lw 2 title "burst_min (ms)", \
     prev = 0, "" using 1:(d = ($7 != prev), prev = $7, d ? 1e7 : 1/0) with impulses dt 2 lc rgb "gray" title "hot set moves"
unset logscale y
set yrange [*:*]
unset y2tics
unset y2label
set ylabel "stall per access, ns"
plot "sim-phase.dat" using 1:6 with lines lw 2 title "bandit: mean stall per access in the epoch"
unset multiplot
