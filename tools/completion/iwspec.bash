# bash completion for iwspec (make install puts it in share/bash-completion/completions/iwspec).
# The commands and each command's options are read from the installed binary's own --help when
# a word is completed, so completion and program cannot disagree; --cases completes case ids
# (`iwspec list`), --profile the profiles, file options files and directories.
_iwspec()
{
	local cur prev cmd opts
	cur=${COMP_WORDS[COMP_CWORD]}
	prev=${COMP_WORDS[COMP_CWORD-1]}
	if [ "$COMP_CWORD" -eq 1 ]; then
		opts=$("$1" --help 2>/dev/null | sed -n '/^commands:/,/^$/s/^  \([a-z][a-z-]*\) .*/\1/p')
		mapfile -t COMPREPLY < <(compgen -W "$opts --help --version" -- "$cur")
		return
	fi
	cmd=${COMP_WORDS[1]}
	case $prev in
	--cases)
		mapfile -t COMPREPLY < <(compgen -W "$("$1" list 2>/dev/null | awk '{ print $1 }')" -- "$cur")
		return ;;
	--profile)
		opts=$("$1" --help 2>/dev/null | sed -n 's/^profiles: //p' | tr ',' ' ')
		mapfile -t COMPREPLY < <(compgen -W "$opts all" -- "$cur")
		return ;;
	--dut-config|--expect|--write-expect|--console|--console-reports)
		mapfile -t COMPREPLY < <(compgen -f -- "$cur")
		return ;;
	--report|--out|--corpus|--case-dir)
		mapfile -t COMPREPLY < <(compgen -d -- "$cur")
		return ;;
	esac
	opts=$("$1" "$cmd" --help 2>&1 | grep -o -- '--[a-z][a-z0-9-]*' | sort -u)
	mapfile -t COMPREPLY < <(compgen -W "$opts" -- "$cur")
}
complete -F _iwspec iwspec
