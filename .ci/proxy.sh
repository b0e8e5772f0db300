# Sourced by the .ci scripts that install this repository's module as a
# user would: make_proxy DIR VERSION serves HEAD as VERSION from a
# throwaway file-based module proxy under DIR (the layout the module proxy
# protocol names: @v/list, .info, .mod, .zip) and prints the GOPROXY value
# that reads it first.
mod=github.com/seed4d941b13/uidgen

make_proxy() {
  local dir="$1/$mod/@v" version=$2
  # Run as $(make_proxy ...), where set -e does not reach: each step
  # returns on failure itself.
  mkdir -p "$dir" || return 1
  echo "$version" >"$dir/list" || return 1
  printf '{"Version":"%s","Time":"%s"}\n' "$version" "$(git log -1 --format=%cI HEAD)" >"$dir/$version.info" || return 1
  git show HEAD:go.mod >"$dir/$version.mod" || return 1
  # The zip holds the module's files under MODULE@VERSION/, without the
  # nested bench module, which is a module of its own. It is HEAD's: a
  # change not committed is not in it.
  git archive --format=zip --prefix="$mod@$version/" -o "$dir/$version.zip" HEAD -- . ':(exclude)bench' || return 1
  if [ -n "$(git status --porcelain --untracked-files=no)" ]; then
    echo "note: uncommitted changes are not in the module served; the check reads HEAD" >&2
  fi
  echo "file://$1"
}
