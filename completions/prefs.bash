#!/bin/bash

__prefs_cursor_index_in_current_word() {
    local remaining="${COMP_LINE}"

    local word
    for word in "${COMP_WORDS[@]::COMP_CWORD}"; do
        remaining="${remaining##*([[:space:]])"${word}"*([[:space:]])}"
    done

    local -ir index="$((COMP_POINT - ${#COMP_LINE} + ${#remaining}))"
    if [[ "${index}" -le 0 ]]; then
        printf 0
    else
        printf %s "${index}"
    fi
}

# positional arguments:
#
# - 1: the current (sub)command's count of positional arguments
#
# required variables:
#
# - repeating_flags: the repeating flags that the current (sub)command can accept
# - non_repeating_flags: the non-repeating flags that the current (sub)command can accept
# - repeating_options: the repeating options that the current (sub)command can accept
# - non_repeating_options: the non-repeating options that the current (sub)command can accept
# - positional_number: value ignored
# - unparsed_words: unparsed words from the current command line
#
# modified variables:
#
# - non_repeating_flags: remove flags for this (sub)command that are already on the command line
# - non_repeating_options: remove options for this (sub)command that are already on the command line
# - positional_number: set to the current positional number
# - unparsed_words: remove all flags, options, and option values for this (sub)command
__prefs_offer_flags_options() {
    local -ir positional_count="${1}"
    positional_number=0

    local was_flag_option_terminator_seen=false
    local is_parsing_option_value=false

    local -ar unparsed_word_indices=("${!unparsed_words[@]}")
    local -i word_index
    for word_index in "${unparsed_word_indices[@]}"; do
        if "${is_parsing_option_value}"; then
            # This word is an option value:
            # Reset marker for next word iff not currently the last word
            [[ "${word_index}" -ne "${unparsed_word_indices[${#unparsed_word_indices[@]} - 1]}" ]] && is_parsing_option_value=false
            unset "unparsed_words[${word_index}]"
            # Do not process this word as a flag or an option
            continue
        fi

        local word="${unparsed_words["${word_index}"]}"
        if ! "${was_flag_option_terminator_seen}"; then
            case "${word}" in
            --)
                unset "unparsed_words[${word_index}]"
                # by itself -- is a flag/option terminator, but if it is the last word, it is the start of a completion
                if [[ "${word_index}" -ne "${unparsed_word_indices[${#unparsed_word_indices[@]} - 1]}" ]]; then
                    was_flag_option_terminator_seen=true
                fi
                continue
                ;;
            -*)
                # ${word} is a flag or an option
                # If ${word} is an option, mark that the next word to be parsed is an option value
                local option
                for option in "${repeating_options[@]}" "${non_repeating_options[@]}"; do
                    [[ "${word}" = "${option}" ]] && is_parsing_option_value=true && break
                done

                # Remove ${word} from ${non_repeating_flags} or ${non_repeating_options} so it isn't offered again
                local not_found=true
                local -i index
                for index in "${!non_repeating_flags[@]}"; do
                    if [[ "${non_repeating_flags[${index}]}" = "${word}" ]]; then
                        unset "non_repeating_flags[${index}]"
                        non_repeating_flags=("${non_repeating_flags[@]}")
                        not_found=false
                        break
                    fi
                done
                if "${not_found}"; then
                    for index in "${!non_repeating_flags[@]}"; do
                        if [[ "${non_repeating_flags[${index}]}" = "${word}" ]]; then
                            unset "non_repeating_flags[${index}]"
                            non_repeating_flags=("${non_repeating_flags[@]}")
                            break
                        fi
                    done
                fi
                unset "unparsed_words[${word_index}]"
                continue
                ;;
            esac
        fi

        # ${word} is neither a flag, nor an option, nor an option value
        if [[ "${positional_number}" -lt "${positional_count}" || "${positional_count}" -lt 0 ]]; then
            # ${word} is a positional
            ((positional_number++))
            unset "unparsed_words[${word_index}]"
        else
            if [[ -z "${word}" ]]; then
                # Could be completing a flag, option, or subcommand
                positional_number=-1
            else
                # ${word} is a subcommand or invalid, so stop processing this (sub)command
                positional_number=-2
            fi
            break
        fi
    done

    unparsed_words=("${unparsed_words[@]}")

    if\
        ! "${was_flag_option_terminator_seen}"\
        && ! "${is_parsing_option_value}"\
        && [[ ("${cur}" = -* && "${positional_number}" -ge 0) || "${positional_number}" -eq -1 ]]
    then
        COMPREPLY+=($(compgen -W "${repeating_flags[*]} ${non_repeating_flags[*]} ${repeating_options[*]} ${non_repeating_options[*]}" -- "${cur}"))
    fi
}

__prefs_add_completions() {
    local completion
    while IFS='' read -r completion; do
        COMPREPLY+=("${completion}")
    done < <(IFS=$'\n' compgen "${@}" -- "${cur}")
}

# Candidates from the callback are data (a key can come from a refresh server or a sync
# peer): read line by line, compared with the typed word as plain text, and inserted
# quoted as the word being completed is quoted; never given to compgen -W or eval.
__prefs_add_custom_completions() {
    compopt +o filenames 2>/dev/null
    local quote=''
    case "${COMP_WORDS[COMP_CWORD]}" in
    \'*) quote="'" ;;
    \"*) quote='"' ;;
    esac
    # The typed word without its escapes (readline leaves an opening quote out of ${cur}).
    local prefix='' character candidate quoted
    local -i i
    if [[ "${quote}" == "'" ]]; then
        prefix="${cur}"
    else
        for ((i = 0; i < ${#cur}; i++)); do
            character="${cur:i:1}"
            if [[ "${character}" == '\' && (-z "${quote}" || "${cur:i+1:1}" == [\$\`\"\\]) ]]; then
                i+=1
                character="${cur:i:1}"
            fi
            prefix+="${character}"
        done
    fi
    while IFS='' read -r candidate; do
        [[ -n "${candidate}" && "${candidate}" == "${prefix}"* ]] || continue
        if [[ "${candidate}" == *[^[:alnum:]_./+%,-]* ]]; then
            quoted=''
            for ((i = 0; i < ${#candidate}; i++)); do
                character="${candidate:i:1}"
                case "${quote}" in
                "'") [[ "${character}" == "'" ]] && character="'\\''" ;;
                '"')
                    # ! would be history expansion even in double quotes: single-quote it.
                    if [[ "${character}" == '!' ]]; then
                        character="\"'!'\""
                    elif [[ "${character}" == [\$\`\"\\] ]]; then
                        character="\\${character}"
                    fi
                    ;;
                *) [[ "${character}" == [[:alnum:]_./+%,-] ]] || character="\\${character}" ;;
                esac
                quoted+="${character}"
            done
            candidate="${quoted}"
        fi
        # readline closes an opened quote unless the match already ends with that character.
        [[ -n "${quote}" && "${candidate}" == *"${quote}" ]] && candidate+="${quote}"
        COMPREPLY+=("${candidate}")
    done <<<"${1}"
}

__prefs_custom_complete() {
    if [[ -n "${cur}" || -z ${COMP_WORDS[${COMP_CWORD}]} || "${COMP_LINE:${COMP_POINT}:1}" != ' ' ]]; then
        local -ar words=("${COMP_WORDS[@]}")
    else
        local -ar words=("${COMP_WORDS[@]::${COMP_CWORD}}" '' "${COMP_WORDS[@]:${COMP_CWORD}}")
    fi

    "${COMP_WORDS[0]}" "${@}" "${words[@]}"
}

_prefs() {
    local state
    state="$(shopt -p;shopt -po)"
    trap "${state//$'\n'/;}" RETURN
    shopt -s extglob
    set +o history +o posix

    local -xr SAP_SHELL=bash
    local -x SAP_SHELL_VERSION
    SAP_SHELL_VERSION="$(IFS='.';printf %s "${BASH_VERSINFO[*]}")"
    local -r SAP_SHELL_VERSION

    local -r cur="${2}"
    local -r prev="${3}"

    local -i positional_number
    local -a unparsed_words=("${COMP_WORDS[@]:1:${COMP_CWORD}}")

    local -a repeating_flags=()
    local -a non_repeating_flags=(--version -h --help)
    local -a repeating_options=(--override)
    local -a non_repeating_options=(--store --actor)
    __prefs_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--store')
        __prefs_add_completions -f
        return
        ;;
    '--actor')
        return
        ;;
    '--override')
        return
        ;;
    esac

    # Offer subcommand / subcommand argument completions
    local -r subcommand="${unparsed_words[0]}"
    unset 'unparsed_words[0]'
    unparsed_words=("${unparsed_words[@]}")
    case "${subcommand}" in
    get|set|rm|list|domains|writable|export|import|exec|batch|incr|apply|log|watch|schema|describe|reset|flag|refresh|remote|sync|serve|doctor|compact|backup|restore|edit|help)
        # Offer subcommand argument completions
        "_prefs_${subcommand}"
        ;;
    *)
        # Offer subcommand completions
        COMPREPLY+=($(compgen -W 'get set rm list domains writable export import exec batch incr apply log watch schema describe reset flag refresh remote sync serve doctor compact backup restore edit help' -- "${cur}"))
        ;;
    esac
}

_prefs_get() {
    repeating_flags=()
    non_repeating_flags=(--json --show-meta --show-origin --version -h --help)
    repeating_options=(--override)
    non_repeating_options=(--store --actor --prefix --default --path)
    __prefs_offer_flags_options -1

    # Offer option value completions
    case "${prev}" in
    '--store')
        __prefs_add_completions -f
        return
        ;;
    '--actor')
        return
        ;;
    '--override')
        return
        ;;
    '--prefix')
        return
        ;;
    '--default')
        return
        ;;
    '--path')
        return
        ;;
    esac

    # Offer positional completions
    case "${positional_number}" in
    1)
        __prefs_add_custom_completions "$(__prefs_custom_complete ---completion get -- positional@0 "${COMP_CWORD}" "$(__prefs_cursor_index_in_current_word)")"
        return
        ;;
    *)
        __prefs_add_custom_completions "$(__prefs_custom_complete ---completion get -- positional@1 "${COMP_CWORD}" "$(__prefs_cursor_index_in_current_word)")"
        return
        ;;
    esac
}

_prefs_set() {
    repeating_flags=()
    non_repeating_flags=(--string --force --if-absent --project --version -h --help)
    repeating_options=(--override)
    non_repeating_options=(--store --actor --type --ttl --if-version --if-value --path)
    __prefs_offer_flags_options -1

    # Offer option value completions
    case "${prev}" in
    '--store')
        __prefs_add_completions -f
        return
        ;;
    '--actor')
        return
        ;;
    '--override')
        return
        ;;
    '--type')
        __prefs_add_completions -W 'string'$'\n''number'$'\n''integer'$'\n''boolean'$'\n''object'$'\n''array'$'\n''json'
        return
        ;;
    '--ttl')
        return
        ;;
    '--if-version')
        return
        ;;
    '--if-value')
        return
        ;;
    '--path')
        return
        ;;
    esac

    # Offer positional completions
    case "${positional_number}" in
    1)
        __prefs_add_custom_completions "$(__prefs_custom_complete ---completion set -- positional@0 "${COMP_CWORD}" "$(__prefs_cursor_index_in_current_word)")"
        return
        ;;
    2)
        __prefs_add_custom_completions "$(__prefs_custom_complete ---completion set -- positional@1 "${COMP_CWORD}" "$(__prefs_cursor_index_in_current_word)")"
        return
        ;;
    *)
        __prefs_add_custom_completions "$(__prefs_custom_complete ---completion set -- positional@2 "${COMP_CWORD}" "$(__prefs_cursor_index_in_current_word)")"
        return
        ;;
    esac
}

_prefs_rm() {
    repeating_flags=()
    non_repeating_flags=(--must-exist --domain --force --if-absent --project --version -h --help)
    repeating_options=(--override)
    non_repeating_options=(--store --actor --prefix --if-version --if-value)
    __prefs_offer_flags_options -1

    # Offer option value completions
    case "${prev}" in
    '--store')
        __prefs_add_completions -f
        return
        ;;
    '--actor')
        return
        ;;
    '--override')
        return
        ;;
    '--prefix')
        return
        ;;
    '--if-version')
        return
        ;;
    '--if-value')
        return
        ;;
    esac

    # Offer positional completions
    case "${positional_number}" in
    1)
        __prefs_add_custom_completions "$(__prefs_custom_complete ---completion rm -- positional@0 "${COMP_CWORD}" "$(__prefs_cursor_index_in_current_word)")"
        return
        ;;
    *)
        __prefs_add_custom_completions "$(__prefs_custom_complete ---completion rm -- positional@1 "${COMP_CWORD}" "$(__prefs_cursor_index_in_current_word)")"
        return
        ;;
    esac
}

_prefs_list() {
    repeating_flags=()
    non_repeating_flags=(--keys-only --json -z --meta --show-origin --allow-missing --version -h --help)
    repeating_options=(--override)
    non_repeating_options=(--store --actor --prefix)
    __prefs_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--store')
        __prefs_add_completions -f
        return
        ;;
    '--actor')
        return
        ;;
    '--override')
        return
        ;;
    '--prefix')
        return
        ;;
    esac

    # Offer positional completions
    case "${positional_number}" in
    1)
        __prefs_add_custom_completions "$(__prefs_custom_complete ---completion list -- positional@0 "${COMP_CWORD}" "$(__prefs_cursor_index_in_current_word)")"
        return
        ;;
    esac
}

_prefs_domains() {
    repeating_flags=()
    non_repeating_flags=(--json --version -h --help)
    repeating_options=(--override)
    non_repeating_options=(--store --actor)
    __prefs_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--store')
        __prefs_add_completions -f
        return
        ;;
    '--actor')
        return
        ;;
    '--override')
        return
        ;;
    esac
}

_prefs_writable() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=(--override)
    non_repeating_options=(--store --actor)
    __prefs_offer_flags_options 2

    # Offer option value completions
    case "${prev}" in
    '--store')
        __prefs_add_completions -f
        return
        ;;
    '--actor')
        return
        ;;
    '--override')
        return
        ;;
    esac

    # Offer positional completions
    case "${positional_number}" in
    1)
        __prefs_add_custom_completions "$(__prefs_custom_complete ---completion writable -- positional@0 "${COMP_CWORD}" "$(__prefs_cursor_index_in_current_word)")"
        return
        ;;
    2)
        __prefs_add_custom_completions "$(__prefs_custom_complete ---completion writable -- positional@1 "${COMP_CWORD}" "$(__prefs_cursor_index_in_current_word)")"
        return
        ;;
    esac
}

_prefs_export() {
    repeating_flags=()
    non_repeating_flags=(--pretty --effective --allow-missing --version -h --help)
    repeating_options=(--override)
    non_repeating_options=(--store --actor -o --format --name-prefix)
    __prefs_offer_flags_options -1

    # Offer option value completions
    case "${prev}" in
    '--store')
        __prefs_add_completions -f
        return
        ;;
    '--actor')
        return
        ;;
    '--override')
        return
        ;;
    '-o')
        __prefs_add_completions -f
        return
        ;;
    '--format')
        __prefs_add_completions -W 'json'$'\n''env'$'\n''dotenv'$'\n''github'
        return
        ;;
    '--name-prefix')
        return
        ;;
    esac
}

_prefs_import() {
    repeating_flags=()
    non_repeating_flags=(--replace --dry-run --force --version -h --help)
    repeating_options=(--override)
    non_repeating_options=(--store --actor)
    __prefs_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--store')
        __prefs_add_completions -f
        return
        ;;
    '--actor')
        return
        ;;
    '--override')
        return
        ;;
    esac

    # Offer positional completions
    case "${positional_number}" in
    1)
        __prefs_add_completions -f
        return
        ;;
    esac
}

_prefs_exec() {
    repeating_flags=()
    non_repeating_flags=(--restart --version -h --help)
    repeating_options=(--override)
    non_repeating_options=(--store --actor --name-prefix --signal)
    __prefs_offer_flags_options -1

    # Offer option value completions
    case "${prev}" in
    '--store')
        __prefs_add_completions -f
        return
        ;;
    '--actor')
        return
        ;;
    '--override')
        return
        ;;
    '--name-prefix')
        return
        ;;
    '--signal')
        return
        ;;
    esac

    # Offer positional completions
    case "${positional_number}" in
    1)
        __prefs_add_custom_completions "$(__prefs_custom_complete ---completion exec -- positional@0 "${COMP_CWORD}" "$(__prefs_cursor_index_in_current_word)")"
        return
        ;;
    esac
}

_prefs_batch() {
    repeating_flags=()
    non_repeating_flags=(--force --version -h --help)
    repeating_options=(--override)
    non_repeating_options=(--store --actor --window)
    __prefs_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--store')
        __prefs_add_completions -f
        return
        ;;
    '--actor')
        return
        ;;
    '--override')
        return
        ;;
    '--window')
        return
        ;;
    esac
}

_prefs_incr() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=(--override)
    non_repeating_options=(--store --actor --by)
    __prefs_offer_flags_options 2

    # Offer option value completions
    case "${prev}" in
    '--store')
        __prefs_add_completions -f
        return
        ;;
    '--actor')
        return
        ;;
    '--override')
        return
        ;;
    '--by')
        return
        ;;
    esac

    # Offer positional completions
    case "${positional_number}" in
    1)
        __prefs_add_custom_completions "$(__prefs_custom_complete ---completion incr -- positional@0 "${COMP_CWORD}" "$(__prefs_cursor_index_in_current_word)")"
        return
        ;;
    2)
        __prefs_add_custom_completions "$(__prefs_custom_complete ---completion incr -- positional@1 "${COMP_CWORD}" "$(__prefs_cursor_index_in_current_word)")"
        return
        ;;
    esac
}

_prefs_apply() {
    repeating_flags=()
    non_repeating_flags=(--force --version -h --help)
    repeating_options=(--override)
    non_repeating_options=(--store --actor)
    __prefs_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--store')
        __prefs_add_completions -f
        return
        ;;
    '--actor')
        return
        ;;
    '--override')
        return
        ;;
    esac

    # Offer positional completions
    case "${positional_number}" in
    1)
        __prefs_add_completions -f
        return
        ;;
    esac
}

_prefs_log() {
    repeating_flags=()
    non_repeating_flags=(--json --version -h --help)
    repeating_options=(--override)
    non_repeating_options=(--store --actor --limit --since --retain)
    __prefs_offer_flags_options 2

    # Offer option value completions
    case "${prev}" in
    '--store')
        __prefs_add_completions -f
        return
        ;;
    '--actor')
        return
        ;;
    '--override')
        return
        ;;
    '--limit')
        return
        ;;
    '--since')
        return
        ;;
    '--retain')
        return
        ;;
    esac

    # Offer positional completions
    case "${positional_number}" in
    1)
        __prefs_add_custom_completions "$(__prefs_custom_complete ---completion log -- positional@0 "${COMP_CWORD}" "$(__prefs_cursor_index_in_current_word)")"
        return
        ;;
    2)
        __prefs_add_custom_completions "$(__prefs_custom_complete ---completion log -- positional@1 "${COMP_CWORD}" "$(__prefs_cursor_index_in_current_word)")"
        return
        ;;
    esac
}

_prefs_watch() {
    repeating_flags=()
    non_repeating_flags=(--json --once --version -h --help)
    repeating_options=(--override)
    non_repeating_options=(--store --actor --prefix)
    __prefs_offer_flags_options -1

    # Offer option value completions
    case "${prev}" in
    '--store')
        __prefs_add_completions -f
        return
        ;;
    '--actor')
        return
        ;;
    '--override')
        return
        ;;
    '--prefix')
        return
        ;;
    esac

    # Offer positional completions
    case "${positional_number}" in
    1)
        __prefs_add_custom_completions "$(__prefs_custom_complete ---completion watch -- positional@0 "${COMP_CWORD}" "$(__prefs_cursor_index_in_current_word)")"
        return
        ;;
    2)
        __prefs_add_custom_completions "$(__prefs_custom_complete ---completion watch -- positional@1 "${COMP_CWORD}" "$(__prefs_cursor_index_in_current_word)")"
        return
        ;;
    esac
}

_prefs_schema() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=()
    __prefs_offer_flags_options 0

    # Offer subcommand / subcommand argument completions
    local -r subcommand="${unparsed_words[0]}"
    unset 'unparsed_words[0]'
    unparsed_words=("${unparsed_words[@]}")
    case "${subcommand}" in
    load|show)
        # Offer subcommand argument completions
        "_prefs_schema_${subcommand}"
        ;;
    *)
        # Offer subcommand completions
        COMPREPLY+=($(compgen -W 'load show' -- "${cur}"))
        ;;
    esac
}

_prefs_schema_load() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=(--override)
    non_repeating_options=(--store --actor)
    __prefs_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--store')
        __prefs_add_completions -f
        return
        ;;
    '--actor')
        return
        ;;
    '--override')
        return
        ;;
    esac

    # Offer positional completions
    case "${positional_number}" in
    1)
        __prefs_add_completions -f
        return
        ;;
    esac
}

_prefs_schema_show() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=(--override)
    non_repeating_options=(--store --actor)
    __prefs_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--store')
        __prefs_add_completions -f
        return
        ;;
    '--actor')
        return
        ;;
    '--override')
        return
        ;;
    esac
}

_prefs_describe() {
    repeating_flags=()
    non_repeating_flags=(--json --version -h --help)
    repeating_options=(--override)
    non_repeating_options=(--store --actor)
    __prefs_offer_flags_options 2

    # Offer option value completions
    case "${prev}" in
    '--store')
        __prefs_add_completions -f
        return
        ;;
    '--actor')
        return
        ;;
    '--override')
        return
        ;;
    esac

    # Offer positional completions
    case "${positional_number}" in
    1)
        __prefs_add_custom_completions "$(__prefs_custom_complete ---completion describe -- positional@0 "${COMP_CWORD}" "$(__prefs_cursor_index_in_current_word)")"
        return
        ;;
    2)
        __prefs_add_custom_completions "$(__prefs_custom_complete ---completion describe -- positional@1 "${COMP_CWORD}" "$(__prefs_cursor_index_in_current_word)")"
        return
        ;;
    esac
}

_prefs_reset() {
    repeating_flags=()
    non_repeating_flags=(--all --version -h --help)
    repeating_options=(--override)
    non_repeating_options=(--store --actor --prefix)
    __prefs_offer_flags_options -1

    # Offer option value completions
    case "${prev}" in
    '--store')
        __prefs_add_completions -f
        return
        ;;
    '--actor')
        return
        ;;
    '--override')
        return
        ;;
    '--prefix')
        return
        ;;
    esac

    # Offer positional completions
    case "${positional_number}" in
    1)
        __prefs_add_custom_completions "$(__prefs_custom_complete ---completion reset -- positional@0 "${COMP_CWORD}" "$(__prefs_cursor_index_in_current_word)")"
        return
        ;;
    *)
        __prefs_add_custom_completions "$(__prefs_custom_complete ---completion reset -- positional@1 "${COMP_CWORD}" "$(__prefs_cursor_index_in_current_word)")"
        return
        ;;
    esac
}

_prefs_flag() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=()
    __prefs_offer_flags_options 0

    # Offer subcommand / subcommand argument completions
    local -r subcommand="${unparsed_words[0]}"
    unset 'unparsed_words[0]'
    unparsed_words=("${unparsed_words[@]}")
    case "${subcommand}" in
    import|export|list|show|eval|enabled|enable|default|disable|config|explain|diff|stats|lint)
        # Offer subcommand argument completions
        "_prefs_flag_${subcommand}"
        ;;
    *)
        # Offer subcommand completions
        COMPREPLY+=($(compgen -W 'import export list show eval enabled enable default disable config explain diff stats lint' -- "${cur}"))
        ;;
    esac
}

_prefs_flag_import() {
    repeating_flags=()
    non_repeating_flags=(--replace --dry-run --version -h --help)
    repeating_options=(--override)
    non_repeating_options=(--store --actor)
    __prefs_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--store')
        __prefs_add_completions -f
        return
        ;;
    '--actor')
        return
        ;;
    '--override')
        return
        ;;
    esac
}

_prefs_flag_export() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=(--override)
    non_repeating_options=(--store --actor -o)
    __prefs_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--store')
        __prefs_add_completions -f
        return
        ;;
    '--actor')
        return
        ;;
    '--override')
        return
        ;;
    '-o')
        return
        ;;
    esac
}

_prefs_flag_list() {
    repeating_flags=()
    non_repeating_flags=(--json --version -h --help)
    repeating_options=(--override)
    non_repeating_options=(--store --actor)
    __prefs_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--store')
        __prefs_add_completions -f
        return
        ;;
    '--actor')
        return
        ;;
    '--override')
        return
        ;;
    esac
}

_prefs_flag_show() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=(--override)
    non_repeating_options=(--store --actor)
    __prefs_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--store')
        __prefs_add_completions -f
        return
        ;;
    '--actor')
        return
        ;;
    '--override')
        return
        ;;
    esac

    # Offer positional completions
    case "${positional_number}" in
    1)
        __prefs_add_custom_completions "$(__prefs_custom_complete ---completion flag show -- positional@0 "${COMP_CWORD}" "$(__prefs_cursor_index_in_current_word)")"
        return
        ;;
    esac
}

_prefs_flag_eval() {
    repeating_flags=()
    non_repeating_flags=(--strict --json --version -h --help)
    repeating_options=(--override)
    non_repeating_options=(--store --actor --type --default --context --targeting-key --fractional-version)
    __prefs_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--store')
        __prefs_add_completions -f
        return
        ;;
    '--actor')
        return
        ;;
    '--override')
        return
        ;;
    '--type')
        return
        ;;
    '--default')
        return
        ;;
    '--context')
        return
        ;;
    '--targeting-key')
        return
        ;;
    '--fractional-version')
        return
        ;;
    esac

    # Offer positional completions
    case "${positional_number}" in
    1)
        __prefs_add_custom_completions "$(__prefs_custom_complete ---completion flag eval -- positional@0 "${COMP_CWORD}" "$(__prefs_cursor_index_in_current_word)")"
        return
        ;;
    esac
}

_prefs_flag_enabled() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=(--override)
    non_repeating_options=(--store --actor --context --targeting-key --fractional-version)
    __prefs_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--store')
        __prefs_add_completions -f
        return
        ;;
    '--actor')
        return
        ;;
    '--override')
        return
        ;;
    '--context')
        return
        ;;
    '--targeting-key')
        return
        ;;
    '--fractional-version')
        return
        ;;
    esac

    # Offer positional completions
    case "${positional_number}" in
    1)
        __prefs_add_custom_completions "$(__prefs_custom_complete ---completion flag enabled -- positional@0 "${COMP_CWORD}" "$(__prefs_cursor_index_in_current_word)")"
        return
        ;;
    esac
}

_prefs_flag_enable() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=(--override)
    non_repeating_options=(--store --actor)
    __prefs_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--store')
        __prefs_add_completions -f
        return
        ;;
    '--actor')
        return
        ;;
    '--override')
        return
        ;;
    esac

    # Offer positional completions
    case "${positional_number}" in
    1)
        __prefs_add_custom_completions "$(__prefs_custom_complete ---completion flag enable -- positional@0 "${COMP_CWORD}" "$(__prefs_cursor_index_in_current_word)")"
        return
        ;;
    esac
}

_prefs_flag_default() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=(--override)
    non_repeating_options=(--store --actor --if-version)
    __prefs_offer_flags_options 2

    # Offer option value completions
    case "${prev}" in
    '--store')
        __prefs_add_completions -f
        return
        ;;
    '--actor')
        return
        ;;
    '--override')
        return
        ;;
    '--if-version')
        return
        ;;
    esac

    # Offer positional completions
    case "${positional_number}" in
    1)
        __prefs_add_custom_completions "$(__prefs_custom_complete ---completion flag default -- positional@0 "${COMP_CWORD}" "$(__prefs_cursor_index_in_current_word)")"
        return
        ;;
    esac
}

_prefs_flag_disable() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=(--override)
    non_repeating_options=(--store --actor)
    __prefs_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--store')
        __prefs_add_completions -f
        return
        ;;
    '--actor')
        return
        ;;
    '--override')
        return
        ;;
    esac

    # Offer positional completions
    case "${positional_number}" in
    1)
        __prefs_add_custom_completions "$(__prefs_custom_complete ---completion flag disable -- positional@0 "${COMP_CWORD}" "$(__prefs_cursor_index_in_current_word)")"
        return
        ;;
    esac
}

_prefs_flag_config() {
    repeating_flags=()
    non_repeating_flags=(--unset --version -h --help)
    repeating_options=(--override)
    non_repeating_options=(--store --actor)
    __prefs_offer_flags_options 2

    # Offer option value completions
    case "${prev}" in
    '--store')
        __prefs_add_completions -f
        return
        ;;
    '--actor')
        return
        ;;
    '--override')
        return
        ;;
    esac
}

_prefs_flag_explain() {
    repeating_flags=()
    non_repeating_flags=(--json --version -h --help)
    repeating_options=(--override)
    non_repeating_options=(--store --actor --context --targeting-key --type --default --document --fractional-version)
    __prefs_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--store')
        __prefs_add_completions -f
        return
        ;;
    '--actor')
        return
        ;;
    '--override')
        return
        ;;
    '--context')
        return
        ;;
    '--targeting-key')
        return
        ;;
    '--type')
        return
        ;;
    '--default')
        return
        ;;
    '--document')
        return
        ;;
    '--fractional-version')
        return
        ;;
    esac

    # Offer positional completions
    case "${positional_number}" in
    1)
        __prefs_add_custom_completions "$(__prefs_custom_complete ---completion flag explain -- positional@0 "${COMP_CWORD}" "$(__prefs_cursor_index_in_current_word)")"
        return
        ;;
    esac
}

_prefs_flag_diff() {
    repeating_flags=()
    non_repeating_flags=(--json --version -h --help)
    repeating_options=(--override)
    non_repeating_options=(--store --actor --contexts --synthetic --seed --examples --fractional-version)
    __prefs_offer_flags_options 2

    # Offer option value completions
    case "${prev}" in
    '--store')
        __prefs_add_completions -f
        return
        ;;
    '--actor')
        return
        ;;
    '--override')
        return
        ;;
    '--contexts')
        return
        ;;
    '--synthetic')
        return
        ;;
    '--seed')
        return
        ;;
    '--examples')
        return
        ;;
    '--fractional-version')
        return
        ;;
    esac
}

_prefs_flag_stats() {
    repeating_flags=()
    non_repeating_flags=(--json --version -h --help)
    repeating_options=(--override)
    non_repeating_options=(--store --actor --contexts --synthetic --seed --document --fractional-version)
    __prefs_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--store')
        __prefs_add_completions -f
        return
        ;;
    '--actor')
        return
        ;;
    '--override')
        return
        ;;
    '--contexts')
        return
        ;;
    '--synthetic')
        return
        ;;
    '--seed')
        return
        ;;
    '--document')
        return
        ;;
    '--fractional-version')
        return
        ;;
    esac

    # Offer positional completions
    case "${positional_number}" in
    1)
        __prefs_add_custom_completions "$(__prefs_custom_complete ---completion flag stats -- positional@0 "${COMP_CWORD}" "$(__prefs_cursor_index_in_current_word)")"
        return
        ;;
    esac
}

_prefs_flag_lint() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=(--override)
    non_repeating_options=(--store --actor --format)
    __prefs_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--store')
        __prefs_add_completions -f
        return
        ;;
    '--actor')
        return
        ;;
    '--override')
        return
        ;;
    '--format')
        return
        ;;
    esac
}

_prefs_refresh() {
    repeating_flags=()
    non_repeating_flags=(--status --json --version -h --help)
    repeating_options=(--override --header --header-file)
    non_repeating_options=(--store --actor --from --timeout --max-age)
    __prefs_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--store')
        __prefs_add_completions -f
        return
        ;;
    '--actor')
        return
        ;;
    '--override')
        return
        ;;
    '--from')
        return
        ;;
    '--timeout')
        return
        ;;
    '--header')
        return
        ;;
    '--header-file')
        return
        ;;
    '--max-age')
        return
        ;;
    esac

    # Offer positional completions
    case "${positional_number}" in
    1)
        __prefs_add_custom_completions "$(__prefs_custom_complete ---completion refresh -- positional@0 "${COMP_CWORD}" "$(__prefs_cursor_index_in_current_word)")"
        return
        ;;
    esac
}

_prefs_remote() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=()
    __prefs_offer_flags_options 0

    # Offer subcommand / subcommand argument completions
    local -r subcommand="${unparsed_words[0]}"
    unset 'unparsed_words[0]'
    unparsed_words=("${unparsed_words[@]}")
    case "${subcommand}" in
    set|show|unset)
        # Offer subcommand argument completions
        "_prefs_remote_${subcommand}"
        ;;
    *)
        # Offer subcommand completions
        COMPREPLY+=($(compgen -W 'set show unset' -- "${cur}"))
        ;;
    esac
}

_prefs_remote_set() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=(--override)
    non_repeating_options=(--store --actor --domains)
    __prefs_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--store')
        __prefs_add_completions -f
        return
        ;;
    '--actor')
        return
        ;;
    '--override')
        return
        ;;
    '--domains')
        return
        ;;
    esac
}

_prefs_remote_show() {
    repeating_flags=()
    non_repeating_flags=(--json --version -h --help)
    repeating_options=(--override)
    non_repeating_options=(--store --actor)
    __prefs_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--store')
        __prefs_add_completions -f
        return
        ;;
    '--actor')
        return
        ;;
    '--override')
        return
        ;;
    esac
}

_prefs_remote_unset() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=(--override)
    non_repeating_options=(--store --actor)
    __prefs_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--store')
        __prefs_add_completions -f
        return
        ;;
    '--actor')
        return
        ;;
    '--override')
        return
        ;;
    esac
}

_prefs_sync() {
    repeating_flags=()
    non_repeating_flags=(--status --json --compact --version -h --help)
    repeating_options=(--override)
    non_repeating_options=(--store --actor --watch --horizon --timeout)
    __prefs_offer_flags_options -1

    # Offer option value completions
    case "${prev}" in
    '--store')
        __prefs_add_completions -f
        return
        ;;
    '--actor')
        return
        ;;
    '--override')
        return
        ;;
    '--watch')
        return
        ;;
    '--horizon')
        return
        ;;
    '--timeout')
        return
        ;;
    esac
}

_prefs_serve() {
    repeating_flags=()
    non_repeating_flags=(--no-access-log --version -h --help)
    repeating_options=(--override)
    non_repeating_options=(--store --actor --listen --token-file --max-body --read-timeout --head-timeout --max-connections-per-address --max-event-streams --max-steps)
    __prefs_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--store')
        __prefs_add_completions -f
        return
        ;;
    '--actor')
        return
        ;;
    '--override')
        return
        ;;
    '--listen')
        return
        ;;
    '--token-file')
        return
        ;;
    '--max-body')
        return
        ;;
    '--read-timeout')
        return
        ;;
    '--head-timeout')
        return
        ;;
    '--max-connections-per-address')
        return
        ;;
    '--max-event-streams')
        return
        ;;
    '--max-steps')
        return
        ;;
    esac
}

_prefs_doctor() {
    repeating_flags=()
    non_repeating_flags=(--json --fix --all --version -h --help)
    repeating_options=(--override)
    non_repeating_options=(--store --actor)
    __prefs_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--store')
        __prefs_add_completions -f
        return
        ;;
    '--actor')
        return
        ;;
    '--override')
        return
        ;;
    esac
}

_prefs_compact() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=(--override)
    non_repeating_options=(--store --actor)
    __prefs_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--store')
        __prefs_add_completions -f
        return
        ;;
    '--actor')
        return
        ;;
    '--override')
        return
        ;;
    esac
}

_prefs_backup() {
    repeating_flags=()
    non_repeating_flags=(--force --version -h --help)
    repeating_options=(--override)
    non_repeating_options=(--store --actor)
    __prefs_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--store')
        __prefs_add_completions -f
        return
        ;;
    '--actor')
        return
        ;;
    '--override')
        return
        ;;
    esac

    # Offer positional completions
    case "${positional_number}" in
    1)
        __prefs_add_completions -f
        return
        ;;
    esac
}

_prefs_restore() {
    repeating_flags=()
    non_repeating_flags=(--force --with-sources --version -h --help)
    repeating_options=(--override)
    non_repeating_options=(--store --actor)
    __prefs_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--store')
        __prefs_add_completions -f
        return
        ;;
    '--actor')
        return
        ;;
    '--override')
        return
        ;;
    esac

    # Offer positional completions
    case "${positional_number}" in
    1)
        __prefs_add_completions -f
        return
        ;;
    esac
}

_prefs_edit() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=(--override)
    non_repeating_options=(--store --actor)
    __prefs_offer_flags_options 2

    # Offer option value completions
    case "${prev}" in
    '--store')
        __prefs_add_completions -f
        return
        ;;
    '--actor')
        return
        ;;
    '--override')
        return
        ;;
    esac

    # Offer positional completions
    case "${positional_number}" in
    1)
        __prefs_add_custom_completions "$(__prefs_custom_complete ---completion edit -- positional@0 "${COMP_CWORD}" "$(__prefs_cursor_index_in_current_word)")"
        return
        ;;
    2)
        __prefs_add_custom_completions "$(__prefs_custom_complete ---completion edit -- positional@1 "${COMP_CWORD}" "$(__prefs_cursor_index_in_current_word)")"
        return
        ;;
    esac
}

_prefs_help() {
    repeating_flags=()
    non_repeating_flags=(--version)
    repeating_options=()
    non_repeating_options=()
    __prefs_offer_flags_options -1
}

complete -o filenames -F _prefs prefs
