# Sourced by the .ci scripts that install this repository's module as a
# user would: make_proxy DIR VERSION serves HEAD as VERSION from a
# throwaway file-based module proxy under DIR (the layout the module proxy
# protocol names: @v/list, .info, .mod, .zip) and prints the GOPROXY value
# that reads it first.
mod=github.com/seed4d941b13/uidgen

make_proxy() {
  local dir="$1/$mod/@v" version=$2
  mkdir -p "$dir"
  echo "$version" >"$dir/list"
  printf '{"Version":"%s","Time":"%s"}\n' "$version" "$(git log -1 --format=%cI HEAD)" >"$dir/$version.info"
  git show HEAD:go.mod >"$dir/$version.mod"
  # The zip holds the module's files under MODULE@VERSION/, without the
  # nested bench module, which is a module of its own.
  git archive --format=zip --prefix="$mod@$version/" -o "$dir/$version.zip" HEAD -- . ':(exclude)bench'
  echo "file://$1"
}
