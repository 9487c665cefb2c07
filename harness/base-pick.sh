# SPDX-License-Identifier: GPL-2.0
# Which Debian linux-source-6.1 and linux-config-6.1 to build on, given
# the pin (config/base-version), what dpkg has installed and what the
# archive serves today. Sourced (by deps.sh, deb.sh, rebase.sh and the
# tests in test-base-pick.sh); pure functions of their arguments: no apt,
# no network, so the tests feed them fake archive listings.
#
# Debian's security archive keeps a few revisions of each kernel and
# drops the older ones with every DSA, so the pin cannot be required:
#   1. the pin installed: keep it;
#   2. a newer revision of the pin's upstream version installed: keep it
#      (never downgrade);
#   3. the pin served: install it;
#   4. the pin gone: the newest served revision of the same upstream
#      version (or the installed one, if it is at least as new);
#   5. no revision of that upstream version: another 6.1, newest first,
#      installed or served, but only one the series applies to (the
#      command in $BASE_APPLIES <version> says), and never one that apt
#      would have to downgrade to;
#   6. else nothing.

# upstream_of <debian version>: 6.1.192-3 -> 6.1.192
upstream_of() {
	echo "${1%-*}"
}

# vers_sort: versions on stdin, newest first, as dpkg orders them
vers_sort() {
	local v i out=()

	while read -r v; do
		[ -n "$v" ] || continue
		for i in "${!out[@]}"; do
			[ "${out[$i]}" = "$v" ] && continue 2
		done
		# insertion, with dpkg's order (~ before the empty string)
		i=${#out[@]}
		while [ "$i" -gt 0 ] && newer "$v" "${out[$((i - 1))]}"; do
			out[$i]=${out[$((i - 1))]}
			i=$((i - 1))
		done
		out[$i]=$v
	done
	[ ${#out[@]} -eq 0 ] || printf '%s\n' "${out[@]}"
}

# newer <a> <b>: true if version a is newer than b (dpkg's order)
newer() {
	dpkg --compare-versions "$1" gt "$2"
}

# base_pick <pin> <installed or ""> <served version>...
# Prints one line, "<action> <version> <reason>": action keep (use what
# is installed), install (apt installs that version) or none (version
# "-", reason says why).
base_pick() {
	local pin=$1 have=$2 up v best=
	local served

	shift 2
	served=$(printf '%s\n' "$@" | vers_sort)
	up=$(upstream_of "$pin")

	if [ "$have" = "$pin" ]; then
		echo "keep $pin the pinned revision is installed"
		return
	fi
	if [ -n "$have" ] && [ "$(upstream_of "$have")" = "$up" ] &&
	   newer "$have" "$pin"; then
		echo "keep $have installed $have is newer than the pin $pin: kept, not downgraded"
		return
	fi
	if grep -qxF "$pin" <<< "$served"; then
		echo "install $pin the pinned revision is served"
		return
	fi
	for v in $served; do
		if [ "$(upstream_of "$v")" = "$up" ]; then
			best=$v
			break
		fi
	done
	if [ -n "$best" ]; then
		if [ -n "$have" ] && [ "$(upstream_of "$have")" = "$up" ] &&
		   ! newer "$best" "$have"; then
			echo "keep $have the pin $pin is no longer served: kept installed $have, the same upstream $up"
		else
			echo "install $best the pin $pin is no longer served: using $best, the newest revision of upstream $up"
		fi
		return
	fi
	# Another upstream version, newest first; the installed one counts
	# as served.
	for v in $(printf '%s\n' $served $have | vers_sort); do
		${BASE_APPLIES:-false} "$v" || continue
		if [ "$v" = "$have" ]; then
			echo "keep $v no revision of upstream $up is served: installed $v takes the series"
		elif [ -n "$have" ] && newer "$have" "$v"; then
			echo "none - no revision of upstream $up is served; $v takes the series but installed $have is newer: apt-get install --allow-downgrades linux-source-6.1=$v to use it"
		else
			echo "install $v no revision of upstream $up is served: using $v, which takes the series"
		fi
		return
	done
	if [ -z "$served" ] && [ -z "$have" ]; then
		echo "none - the archive serves no linux-source-6.1 (apt-get update?)"
	else
		echo "none - no revision of upstream $up is served and no other 6.1 takes the series (served: $(echo $served))"
	fi
}

# config_pick <source version> <served linux-config-6.1 version>...
# Debian's whole config for `make deb` and for regenerating
# config/debian-net.config: the source's own revision, else the newest
# of the same upstream version, else the newest served. Prints
# "<exact|same-upstream|other|none> <version or -> <reason>".
config_pick() {
	local src=$1 up v served

	shift
	served=$(printf '%s\n' "$@" | vers_sort)
	up=$(upstream_of "$src")
	if grep -qxF "$src" <<< "$served"; then
		echo "exact $src the source's own revision"
		return
	fi
	for v in $served; do
		if [ "$(upstream_of "$v")" = "$up" ]; then
			echo "same-upstream $v $src's config is not served: $v, the same upstream $up"
			return
		fi
	done
	v=$(head -n 1 <<< "$served")
	if [ -n "$v" ]; then
		echo "other $v no config of upstream $up is served: the newest, $v"
	else
		echo "none - the archive serves no linux-config-6.1"
	fi
}
