#!/bin/bash
# The rows of an A/B of two builds (ab_builds.py), pinned to one core: cl100k_base and
# o200k_base on 1 MB of each shared corpus and on the text of unseen_text.py.
#   benchmarks/ab_rows.sh A.so B.so [cold|warm|count] [rounds] [core]
# Build each tree with its own nanobind domain (see ab_builds.py).
set -e
here=$(cd "$(dirname "$0")" && pwd)
unseen=${TMPDIR:-/tmp}/tokenforge-unseen
[ -f "$unseen/rand_letters.txt" ] || python "$here/unseen_text.py" "$unseen" > /dev/null
corpus=${TMPDIR:-/tmp}/tokenforge-ab-corpus
mkdir -p "$corpus"
for name in en code multi; do
  [ -f "$corpus/$name.txt" ] || (cd "$here" && python -c "from _common import corpus_text; import sys; open(sys.argv[1], 'w').write(corpus_text('$name', 1_000_000))" "$corpus/$name.txt")
done
for enc in cl100k_base o200k_base; do
  for file in "$corpus"/{en,code,multi}.txt "$unseen"/{unseen_code,unseen_multi,unseen_words,rand_letters}.txt; do
    (cd "$here" && taskset -c "${5:-0}" python ab_builds.py "$1" "$2" "$file" --encoding $enc --mode "${3:-cold}" --rounds "${4:-9}")
  done
done
