# bash completion for lace.  Commands and options are read from lace itself
# (`lace help`, `lace CMD --help`), so the completion never falls behind the
# command table.
_lace_commands()
{
	lace help 2>/dev/null | awk '/^commands:/ { f = 1; next } f && !NF { exit } f { print $1 }'
}

_lace_options()
{
	lace "$1" --help 2>/dev/null | grep -oE '(^|[ ,[])--?[a-zA-Z][a-zA-Z0-9-]*' |
		sed -E 's/^[ ,[]//' | sort -u
}

_lace()
{
	local cur prev cmd i
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
	case $prev in
	--backend) COMPREPLY=($(compgen -W "auto hw sim" -- "$cur")); return ;;
	--fail-on) COMPREPLY=($(compgen -W "info warning error never" -- "$cur")); return ;;
	-v|--variant) COMPREPLY=($(compgen -W "$(lace build --list 2>/dev/null | awk '{print $1}')" -- "$cur")); return ;;
	esac
	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$(_lace_options "$cmd")" -- "$cur"))
	else
		COMPREPLY=($(compgen -f -- "$cur"))
	fi
}
complete -o filenames -F _lace lace
