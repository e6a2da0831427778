# bash tests/cli/bash-complete.sh SCRIPT yes|no LINE
# Prints, one per line, what bash completes the end of LINE with, using the completion
# SCRIPT (with bash-completion's helpers loaded: yes, or the script's own: no).
script=$1 with=$2 line=$3
if [ "$with" = yes ]; then
  . /usr/share/bash-completion/bash_completion || exit 77
fi
. "$script"
COMP_LINE=$line
COMP_POINT=${#line}
read -r -a COMP_WORDS <<<"$line"
[[ $line == *" " ]] && COMP_WORDS+=("")
COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
_hangscope hangscope "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
printf '%s\n' "${COMPREPLY[@]}"
