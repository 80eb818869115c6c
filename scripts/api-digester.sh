#!/usr/bin/env bash
# scripts/api-digester.sh — what scripts/api-breakage and scripts/api-breakage-nested share: the Swift API digester's
# dump of a library's public API (`swift-api-digester -dump-sdk`, the judge `swift package
# diagnose-api-breaking-changes` runs) and its comparison with the baseline's dump, with the allowlist.
#
# Source it from the repository's root (sourcing defines variables and functions only; it sets no options or traps):
#
#     api_baseline                          the baseline commit (scripts/api-baseline's first line)
#     api_dumps                             the committed dumps of that commit, scripts/api-baseline-dumps/<commit>
#     api_dump_module LIBRARY BIN SCRATCH OUTPUT
#     api_compare BASELINE CURRENT ALLOWLIST    prints the breaks the allowlist does not name; false if there is one
#     api_allowlist_file                    prints the path of a temporary copy of the allowlist, comments removed
#
# The baseline's dumps are committed, one JSON file per library: building the baseline on every run would compile
# Courier (and the nested packages' SwiftNIO, AsyncHTTPClient and OpenAPIKit) once more. Declarations behind `@_spi`
# are not part of a dump.

api_baseline="$(grep -v '^#' scripts/api-baseline | grep -v '^[[:space:]]*$' | head -n 1 | awk '{print $1}')"
api_dumps="scripts/api-baseline-dumps/$api_baseline"

# api_dump_module LIBRARY BIN SCRATCH OUTPUT: the digester's dump of LIBRARY's public API from the modules in BIN,
# with the C modules' maps and include paths SwiftPM's build in SCRATCH passed to the compiler (SwiftNIO's shims).
api_dump_module() {
    local library="$1" bin="$2" scratch="$3" output="$4" flags=() value
    while IFS= read -r value; do
        flags+=(-Xcc "$value")
    done < <(grep -o -- '-fmodule-map-file=[^ "]*' "$scratch/debug.yaml" | sort -u)
    while IFS= read -r value; do
        [[ "$value" == /* ]] && flags+=(-I "$value")
    done < <(grep -o '"-I","[^"]*"' "$scratch/debug.yaml" | cut -d'"' -f4 | sort -u)
    swift-api-digester -dump-sdk -module "$library" -I "$bin/Modules" ${flags[@]+"${flags[@]}"} -o "$output" \
        -abort-on-module-fail >/dev/null
}

# api_compare BASELINE CURRENT ALLOWLIST: prints the breaks ALLOWLIST does not name (`💔 API breakage: …`); false if
# there is one.
api_compare() {
    local report
    report="$(mktemp)"
    swift-api-digester -diagnose-sdk -compiler-style-diags -input-paths "$1" -input-paths "$2" \
        -breakage-allowlist-path "$3" -o "$report" 2>/dev/null
    if grep -q '^API breakage:' "$report"; then
        sed -n 's/^API breakage: /💔 API breakage: /p' "$report"
        rm -f "$report"
        return 1
    fi
    rm -f "$report"
}

# api_allowlist_file: a temporary copy of scripts/api-breakage-allowlist.txt without its comments (the digester reads
# an allowlist with no other lines, by an absolute path); prints its path.
api_allowlist_file() {
    local out
    out="$(mktemp)"
    grep -v '^#' scripts/api-breakage-allowlist.txt | grep -v '^[[:space:]]*$' >"$out" || true
    echo "$out"
}
