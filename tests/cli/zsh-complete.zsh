# zsh -f tests/cli/zsh-complete.zsh FPATH_DIR LINE
# Prints, one per line, what zsh's completion system offers at the end of LINE: an
# interactive zsh on a pseudo-terminal (zsh/zpty) with FPATH_DIR first in $fpath types
# LINE and a TAB; every word handed to compadd is printed. Each step waits for the
# shell to say it is there (a marker printed by the shell), never for a time.
zmodload zsh/zpty || exit 77
zpty -b z zsh -f -i
# One line: the prompt off, completion on, compadd reporting what it is given, and a
# marker when the line editor is ready for keys.
zpty -w z "PS1=''; fpath=(${(q)1} \$fpath); autoload -Uz compinit; compinit -u -D;" \
  "unsetopt auto_list;" \
  "compadd() { builtin compadd -O __found \"\$@\"; print -r -l -- COMPLETED:\${^__found}; builtin compadd \"\$@\" };" \
  "zle-line-init() { print -n READY\$((1+1)) }; zle -N zle-line-init"
zpty -r z out '*READY2*'
zpty -n -w z "$2"$'\t'
# Kill the line, then a marker that only the shell's output can hold (the echo of
# what was typed shows $((2+1)), not 3).
zpty -n -w z $'\C-u'
zpty -w z 'print DONE$((2+1))'
zpty -r z out '*DONE3*'
print -r -- "$out" | grep -a -o 'COMPLETED:[^[:cntrl:] ]*' | sed 's/^COMPLETED://' | sort -u
zpty -d z
