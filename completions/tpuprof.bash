# bash completion for tpuprof (installed by `make install` into
# $(PREFIX)/share/bash-completion/completions/tpuprof).
_tpuprof()
{
	local cur prev cmd
	cur=${COMP_WORDS[COMP_CWORD]}
	prev=${COMP_WORDS[COMP_CWORD-1]}
	cmd=${COMP_WORDS[1]}
	local commands="capture check collectives devices diff fetch fusions info memory merge oom ops report trace help"
	local common="--format --output -o --run --max-input --quiet -q --jobs -j --help -h --partial --compact"
	if [ "$COMP_CWORD" -eq 1 ]; then
		COMPREPLY=($(compgen -W "$commands --version --help" -- "$cur"))
		return
	fi
	case $prev in
	--format) COMPREPLY=($(compgen -W "text json html" -- "$cur")); return ;;
	--device) COMPREPLY=($(compgen -W "$(tpuprof devices --format json 2>/dev/null |
			sed -n 's/.*"aliases": \[\(.*\)\].*/\1/p' | tr -d '",')" -- "$cur")); return ;;
	-o|--output|--baseline|--json-out) COMPREPLY=($(compgen -f -- "$cur")); return ;;
	esac
	local opts=$common
	case $cmd in
	check) opts="$opts --max-peak --max-peak-fraction --baseline --max-growth --max-peak-growth
		--max-time-growth --max-traffic-growth --max-step-time --allow-unmatched --json-out
		--max-collective-bytes --min-headroom --min-flops-utilization --max-collective-share
		--max-idle-share --max-hbm-bound --max-compute-bound --max-input-share
		--max-async-wait-share --max-debug-print-share --max-barrier-share
		--max-sparsecore-share --max-host-offload-share --max-straggler-spread
		--max-memory-growth --module --scope --hbm --device --allow-partial" ;;
	ops) opts="$opts --limit --sort --by --fold --core --module --host --per-core --device" ;;
	memory|report|collectives) opts="$opts --device --hbm --module" ;;
	diff) opts="$opts --limit --device" ;;
	merge) opts="$opts --expect" ;;
	help) COMPREPLY=($(compgen -W "$commands" -- "$cur")); return ;;
	esac
	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$opts" -- "$cur"))
	else
		COMPREPLY=($(compgen -f -- "$cur"))
	fi
}
complete -o filenames -F _tpuprof tpuprof
