#!/bin/sh
# Session 14, run 117: CUB's in-place sort with the shared memory per multiprocessor cut to
# what Vulkan gives (cub-smem-limit.py, removed since: see 9440b7f), ours (586c31c) beside
# it. (As run, the limited rows are void: CUB's first sort waited for the hogs to end and the
# best of 11 came after; `python3 cub-smem-limit.py control` showed the wait, and run 118's
# scripts/cub-smem-carveout.py the way round it.)
for l in 24 26; do
  for v in k32 k64; do echo "ours $(./grb_new2 $l --reps 5 --only $v 2>&1 | grep -v phases | grep "$v:")"; done
done
python3 cub-smem-limit.py 24 26
