#!/bin/sh
# Builds flexslot's Debian packages out of the source tree, with Debian's own
# tooling: a copy of the tree (the files git tracks or would, else all but
# build trees) with packaging/debian as its debian/, built there by
# dpkg-buildpackage; the packages, .changes and .buildinfo land in OUTDIR,
# then lintian checks them and its findings go to OUTDIR/lintian.txt (an
# error fails the build). The version is common/version.h's.
#
# OUTDIR/key records the content of the tree the packages were built from:
# when the tree is the same, nothing is built again.
#
#   packaging/build-deb.sh OUTDIR    build (`make deb` runs it, after
#                                    `packaging/deps.sh --build` and `--deb`)
#   packaging/build-deb.sh --key     print the tree's key and exit
set -eu

src=$(cd "$(dirname "$0")/.." && pwd)
print_key=false
case ${1:-} in
--key) print_key=true ;;
-* | "")
	echo "usage: $0 OUTDIR | --key" >&2
	exit 2
	;;
*)
	mkdir -p "$1"
	out=$(cd "$1" && pwd)
	;;
esac

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The tree's files, NUL-separated, relative to $src: those git tracks or
# would track, else everything but .git and the build trees.
candidates() {
	if git -C "$src" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
		git -C "$src" ls-files -z --cached --others --exclude-standard --deduplicate
	else
		(cd "$src" && find . \( -name .git -o -path './build*' \) -prune -o \
			\( -type f -o -type l \) -print0 | sed -z 's|^\./||')
	fi
}

# Of those, the ones that exist (a tracked file may be deleted), and none
# under OUTDIR.
# shellcheck disable=SC2016 # expanded by the inner shell
list_files() {
	candidates | (cd "$src" && xargs -0 -r sh -c 'skip=$1; shift; for f; do
		case $f in "$skip"/*) continue ;; esac
		if [ -e "$f" ] || [ -L "$f" ]; then printf "%s\0" "$f"; fi
	done' sh "${out:+${out#"$src"/}}")
}

# A tar stream of those files that depends on their names, content and
# modes only.
list_files | LC_ALL=C sort -z >"$work/files"
(cd "$src" && tar -cf - --no-recursion --sort=name --mtime=@0 --owner=0 --group=0 \
	--numeric-owner --null -T "$work/files") >"$work/tree.tar"
key=$(sha256sum <"$work/tree.tar" | cut -d' ' -f1)
if $print_key; then
	echo "$key"
	exit 0
fi

debs() {
	find "$out" -maxdepth 1 -name '*.deb' | sort
}
if [ "$(cat "$out/key" 2>/dev/null)" = "$key" ] && [ -n "$(debs)" ]; then
	echo "flexslot: the packages in $out are the tree's (key ${key%"${key#????????????}"}):"
	debs | sed 's|^|  |'
	exit 0
fi

version=$(sed -n 's/^#define FLEXSLOT_VERSION "\(.*\)"$/\1/p' "$src/common/version.h")
[ -n "$version" ] || {
	echo "flexslot: no FLEXSLOT_VERSION in common/version.h" >&2
	exit 1
}
# Only what this script makes: OUTDIR may hold other things.
rm -f "$out/key" "$out/lintian.txt" "$out"/flexslot*.deb "$out"/flexslot_*.changes \
	"$out"/flexslot_*.buildinfo
rm -rf "$out"/flexslot-*/
stage=$out/flexslot-$version
mkdir "$stage"
tar -xf "$work/tree.tar" -C "$stage"
rm -rf "$stage/debian"
cp -R "$src/packaging/debian" "$stage/debian"

# The changelog's one entry: the version, and what the tree was. Its date
# is the last commit's, so that the same tree builds the same packages.
maintainer=$(sed -n 's/^Maintainer: //p' "$stage/debian/control")
what="  * Built from the source tree ${key%"${key#????????????}"}."
date=$(date -R)
if git -C "$src" rev-parse --verify -q HEAD >/dev/null 2>&1; then
	commit=$(git -C "$src" rev-parse --short=12 HEAD)
	if [ -z "$(git -C "$src" status --porcelain 2>/dev/null)" ]; then
		what="$what
    Commit $commit."
	else
		what="$what
    Commit $commit, with local changes."
	fi
	date=$(git -C "$src" log -1 --format=%aD HEAD)
fi
cat >"$stage/debian/changelog" <<EOF
flexslot ($version) bookworm; urgency=medium

$what

 -- $maintainer  $date
EOF

echo "flexslot: building the packages of $version in $stage"
# A make that runs this passes its own variables and jobs down through the
# environment (`make BUILD=dir deb` exports BUILD): the package build takes
# its settings from debian/rules alone.
case " ${DEB_BUILD_OPTIONS:-} " in
*" parallel="*) ;;
*) DEB_BUILD_OPTIONS="${DEB_BUILD_OPTIONS:+$DEB_BUILD_OPTIONS }parallel=$(nproc)" ;;
esac
export DEB_BUILD_OPTIONS
(cd "$stage" && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u MAKEOVERRIDES -u BUILD \
	-u SANITIZE -u PREFIX -u DESTDIR -u SYSCONFDIR -u DBUS_SYSTEM_DIR -u INSTALL_DEPS \
	-u DEB_DIR dpkg-buildpackage -b -us -uc)

changes=$(find "$out" -maxdepth 1 -name "flexslot_${version}_*.changes")
echo "flexslot: lintian $changes"
status=0
lintian --fail-on error --display-info "$changes" >"$out/lintian.txt" 2>"$work/lintian.err" ||
	status=$?
[ -s "$out/lintian.txt" ] || echo "no findings (errors, warnings, information)" >"$out/lintian.txt"
sed 's|^|  |' "$out/lintian.txt"
[ "$status" -eq 0 ] || {
	cat "$work/lintian.err" >&2
	echo "flexslot: lintian failed (status $status): $out/lintian.txt" >&2
	exit 1
}
rm -rf "$stage"
echo "$key" >"$out/key"
echo "flexslot: packages in $out:"
debs | sed 's|^|  |'
