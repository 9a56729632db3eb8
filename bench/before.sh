#!/usr/bin/env bash
# bench/before.sh <rev> [dir]
#
# A worktree of an older revision with THIS bench/ directory copied over its own, so that "before"
# is measured by the same benches, with the same floors and the same guard, as "after" (issue 32).
# The worktree is detached (no branch), gets node_modules as a hard-linked copy of this tree's (the
# packages added since are extra and unused; NPM_CI=1 installs the old lockfile's instead, which
# needs the registry), and is left in place for the runs; remove it afterwards with
#   git worktree remove --force <dir>
#
# Example (the start of round 10), then the benches from inside it:
#   bench/before.sh 372d315 /tmp/hirebridge-before
#   cd /tmp/hirebridge-before && npm run bench -- proxy --rounds 3
set -euo pipefail
rev=${1:?usage: bench/before.sh <rev> [dir]}
root=$(cd "$(dirname "$0")/.." && pwd)
dir=${2:-"$root/../hirebridge-before-$(git -C "$root" rev-parse --short "$rev")"}
if [ -e "$dir" ]; then echo "$dir exists: remove it first (git worktree remove --force $dir)" >&2; exit 1; fi
git -C "$root" worktree add --detach "$dir" "$rev" >&2
# The new benches, over the old ones (the old tree's own bench/*.md stay replaced too: one method).
rm -rf "$dir/bench"
cp -R "$root/bench" "$dir/bench"
if [ "${NPM_CI:-0}" = 1 ]; then
  (cd "$dir" && npm ci --no-audit --no-fund >&2)
else
  cp -al "$root/node_modules" "$dir/node_modules"
fi
echo "$dir"
