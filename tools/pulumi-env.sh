# shellcheck shell=bash
# Source this file to run Pulumi offline with the toolchain built by tools/bootstrap:
#
#     source tools/pulumi-env.sh "$(tools/bootstrap | tail -n 1)"
#     pulumi version
#
# Argument: the bin dir (the last stdout line of tools/bootstrap); defaults to $PULUMI_KFT_BIN.
# All settings come from tools/pulumi-offline.env (the single source of truth, also read by
# tools/offline_env.py for Python); this file only interprets it. Works in bash (and zsh).
#
# How the kubernetes provider is found: PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION=true
# forbids downloads, so the engine must find `pulumi-resource-kubernetes` locally: in the plugin
# cache of $PULUMI_HOME, where tools/bootstrap installs it (in $PULUMI_KFT_TOOLS/pulumi-home; for
# another PULUMI_HOME the plugin is linked in below), for the version the pinned SDK asks for. On
# PATH (an "ambient" plugin) it would also be found, with a warning on every run. The language
# hosts and the dynamic-provider plugin are "bundled" plugins: found next to the `pulumi` executable.

_kft_env_main() {
    local bin="${1:-${PULUMI_KFT_BIN:-}}"
    local here envfile
    # shellcheck disable=SC2296  # ${(%):-%x} is zsh's "path of the sourced file"
    if [ -n "${BASH_SOURCE:-}" ]; then here="${BASH_SOURCE[0]}"; else here="${(%):-%x}"; fi
    here="$(cd "$(dirname "$here")" && pwd)"
    envfile="$here/pulumi-offline.env"

    if [ -z "$bin" ] || [ ! -x "$bin/pulumi" ]; then
        echo "pulumi-env.sh: need the bin dir holding 'pulumi' (got '${bin}'); run tools/bootstrap" >&2
        return 1
    fi
    bin="$(cd "$bin" && pwd)"
    export PULUMI_KFT_BIN="$bin"

    # The tools cache is the parent of a bootstrap-built bin dir (marked by .pulumi-kft-tools);
    # for a pulumi found elsewhere (e.g. /usr/local/bin) keep our state in a cache dir instead.
    if [ -z "${PULUMI_KFT_TOOLS:-}" ]; then
        if [ -e "$bin/../.pulumi-kft-tools" ]; then
            PULUMI_KFT_TOOLS="$(cd "$bin/.." && pwd)"
        else
            PULUMI_KFT_TOOLS="${XDG_CACHE_HOME:-$HOME/.cache}/pulumi-kubeflow-trainer/ambient"
        fi
    fi
    export PULUMI_KFT_TOOLS

    # Interpreter with the pulumi SDK: active venv, else the repo venv, else python3.
    if [ -z "${PULUMI_KFT_PYTHON:-}" ]; then
        if [ -n "${VIRTUAL_ENV:-}" ] && [ -x "$VIRTUAL_ENV/bin/python" ]; then
            PULUMI_KFT_PYTHON="$VIRTUAL_ENV/bin/python"
        elif [ -x "$here/../.venv/bin/python" ]; then
            PULUMI_KFT_PYTHON="$(cd "$here/../.venv/bin" && pwd)/python"
        else
            PULUMI_KFT_PYTHON="$(command -v python3 || true)"
        fi
    fi
    export PULUMI_KFT_PYTHON

    local line key val op
    while IFS= read -r line || [ -n "$line" ]; do
        case "$line" in ''|'#'*) continue ;; esac
        key="${line%%=*}"
        val="${line#*=}"
        op="="
        case "$key" in *'?') key="${key%\?}"; op="?=" ;; esac
        if [ "$op" = "?=" ] && [ -n "$(printenv "$key" 2>/dev/null)" ]; then
            continue
        fi
        export "$key=$(_kft_expand "$val")"
    done < "$envfile"
    _kft_link_plugins "$PULUMI_KFT_TOOLS/pulumi-home/plugins" "$PULUMI_HOME/plugins"
}

# The plugins tools/bootstrap installed, linked into another PULUMI_HOME (offline_env.py's link_plugins).
_kft_link_plugins() {
    local source="$1" target="$2" plugin binary
    [ -d "$source" ] && [ "$(cd "$source" && pwd -P)" != "$(mkdir -p "$target" && cd "$target" && pwd -P)" ] || return 0
    for plugin in "$source"/*/; do
        [ -d "$plugin" ] || continue
        mkdir -p "$target/$(basename "$plugin")"
        for binary in "$plugin"*; do
            [ -e "$target/$(basename "$plugin")/$(basename "$binary")" ] ||
                ln -s "$(readlink -f "$binary")" "$target/$(basename "$plugin")/$(basename "$binary")"
        done
    done
}

# Replace every ${NAME} in $1 by the value of NAME; no eval, so values are never executed.
_kft_expand() {
    local rest="$1" out="" name
    # shellcheck disable=SC2016  # a literal '${' is what we look for
    while [[ "$rest" == *'${'*'}'* ]]; do
        out="$out${rest%%\$\{*}"
        rest="${rest#*\$\{}"
        name="${rest%%\}*}"
        rest="${rest#*\}}"
        out="$out$(printenv "$name" 2>/dev/null || true)"
    done
    printf '%s' "$out$rest"
}

_kft_env_main "$@"
_kft_rc=$?
unset -f _kft_env_main _kft_expand
# shellcheck disable=SC2317  # return works when sourced; exit only if run by mistake
return "$_kft_rc" 2>/dev/null || exit "$_kft_rc"
