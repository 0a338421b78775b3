# bash completion for lace.  Commands come from `lace help`, options from
# `lace --list-opts CMD`: the same option table that parses a command's
# options and writes its --help (util/parse_options.h), so the completion
# never falls behind.  Each line is "SPELLING<TAB>ARG<TAB>VALUES".  A
# command without a table lists nothing; its options are then read from
# its --help.
_lace_commands()
{
	lace help 2>/dev/null | awk '/^commands:/ { f = 1; next } f && !NF { exit } f { print $1 }'
}

_lace_options()
{
	local o
	o=$(lace --list-opts "$1" 2>/dev/null | cut -f1)
	if [ -n "$o" ]; then
		printf '%s\n' "$o"
		return
	fi
	lace "$1" --help 2>/dev/null | grep -oE '(^|[ ,[])--?[a-zA-Z][a-zA-Z0-9-]*' |
		sed -E 's/^[ ,[]//' | sort -u
}

# the argument's name and values of option $2 of command $1, tab-separated
_lace_option_arg()
{
	lace --list-opts "$1" 2>/dev/null | awk -F'\t' -v o="$2" '$1 == o { print $2 "\t" $3; exit }'
}

_lace()
{
	local cur prev cmd i j arg argh values
	COMPREPLY=()
	cur=${COMP_WORDS[COMP_CWORD]}
	prev=${COMP_WORDS[COMP_CWORD-1]}
	cmd=
	for ((i = 1; i < COMP_CWORD; i++)); do
		case ${COMP_WORDS[i]} in
		-*) ;;
		*) cmd=${COMP_WORDS[i]}; break ;;
		esac
	done
	if [ -z "$cmd" ]; then
		COMPREPLY=($(compgen -W "$(_lace_commands) --help --version" -- "$cur"))
		return
	fi
	case $cmd in
	help)
		COMPREPLY=($(compgen -W "$(_lace_commands)" -- "$cur"))
		return ;;
	esac
	# lace build's subcommands (bpftool style): `kernel ARCH`, or the study
	# code without one; --kernel ARCH is the older spelling of `kernel ARCH`
	local karch=
	if [ "$cmd" = build ]; then
		for ((j = i + 1; j < COMP_CWORD; j++)); do
			case ${COMP_WORDS[j]} in
			kernel|--kernel|-K) karch=${COMP_WORDS[j+1]:-all} ;;
			esac
		done
		case $prev in
		build) [[ $cur != -* ]] &&
			{ COMPREPLY=($(compgen -W "kernel study" -- "$cur")); return; } ;;
		kernel|--kernel|-K)
			COMPREPLY=($(compgen -W "$(lace build kernel --list 2>/dev/null | awk '{print $1}' | sort -u)" -- "$cur"))
			return ;;
		esac
	fi
	# values no table can know, or of commands without a table
	case $prev in
	--fail-on) COMPREPLY=($(compgen -W "info warning error never" -- "$cur")); return ;;
	-v|--variant) if [ -n "$karch" ]; then
		COMPREPLY=($(compgen -W "$(lace build kernel "$karch" --list 2>/dev/null | awk '{print $2}')" -- "$cur"))
		return
	elif [ "$cmd" = build ]; then
		COMPREPLY=($(compgen -W "$(lace build --list 2>/dev/null | awk '{print $1}')" -- "$cur"))
		return
	fi ;;
	esac
	if [[ $prev == -* ]]; then
		arg=$(_lace_option_arg "$cmd" "$prev")
		argh=${arg%%$'\t'*}
		values=${arg#*$'\t'}
		if [ -n "$values" ]; then
			COMPREPLY=($(compgen -W "$values" -- "$cur"))
			return
		fi
		case $argh in
		'') ;; # a flag, or an option of a command without a table
		*FILE* | *ELF* | *DIR* | *PATH*) COMPREPLY=($(compgen -f -- "$cur")); return ;;
		*) return ;; # a number, a list: nothing to offer
		esac
	fi
	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$(_lace_options "$cmd")" -- "$cur"))
	else
		COMPREPLY=($(compgen -f -- "$cur"))
	fi
}
complete -o filenames -F _lace lace
