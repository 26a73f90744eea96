function __prefs_should_offer_completions_for_flags_or_options -a expected_commands
    set -l non_repeating_flags_or_options $argv[2..]
    set -l non_repeating_flags_or_options_absent 0
    set -l positional_index 0
    set -l commands
    __prefs_parse_tokens
    test "$commands" = "$expected_commands"; and return $non_repeating_flags_or_options_absent
end

function __prefs_should_offer_completions_for_positional -a expected_commands positional_index_comparison expected_positional_index
    set -l non_repeating_flags_or_options
    set -l non_repeating_flags_or_options_absent 0
    set -l positional_index 0
    set -l commands
    __prefs_parse_tokens
    test "$commands" = "$expected_commands" -a \( "$positional_index" "$positional_index_comparison" "$expected_positional_index" \)
end

function __prefs_parse_tokens -S
    set -l unparsed_tokens (__prefs_tokens -pc)
    switch $unparsed_tokens[1]
    case 'prefs'
        __prefs_parse_subcommand 0 'store=' 'actor=' 'override=+' 'version' 'h/help'
        switch $unparsed_tokens[1]
        case 'get'
            __prefs_parse_subcommand -r 2 'store=' 'actor=' 'override=+' 'prefix=' 'default=' 'json' 'show-meta' 'show-origin' 'path=' 'version' 'h/help'
        case 'set'
            __prefs_parse_subcommand -r 3 'store=' 'actor=' 'override=+' 'string' 'type=' 'force' 'ttl=' 'if-version=' 'if-absent' 'if-value=' 'path=' 'project' 'version' 'h/help'
        case 'rm'
            __prefs_parse_subcommand -r 2 'store=' 'actor=' 'override=+' 'prefix=' 'must-exist' 'domain' 'force' 'if-version=' 'if-value=' 'if-absent' 'project' 'version' 'h/help'
        case 'list'
            __prefs_parse_subcommand 1 'store=' 'actor=' 'override=+' 'prefix=' 'keys-only' 'json' 'z' 'meta' 'show-origin' 'allow-missing' 'version' 'h/help'
        case 'domains'
            __prefs_parse_subcommand 0 'store=' 'actor=' 'override=+' 'json' 'version' 'h/help'
        case 'writable'
            __prefs_parse_subcommand 2 'store=' 'actor=' 'override=+' 'version' 'h/help'
        case 'export'
            __prefs_parse_subcommand -r 1 'store=' 'actor=' 'override=+' 'o=' 'pretty' 'format=' 'name-prefix=' 'effective' 'allow-missing' 'version' 'h/help'
        case 'import'
            __prefs_parse_subcommand 1 'store=' 'actor=' 'override=+' 'replace' 'dry-run' 'force' 'version' 'h/help'
        case 'exec'
            __prefs_parse_subcommand -r 2 'store=' 'actor=' 'override=+' 'name-prefix=' 'restart' 'signal=' 'version' 'h/help'
        case 'batch'
            __prefs_parse_subcommand 0 'store=' 'actor=' 'override=+' 'window=' 'force' 'version' 'h/help'
        case 'incr'
            __prefs_parse_subcommand 2 'store=' 'actor=' 'override=+' 'by=' 'version' 'h/help'
        case 'apply'
            __prefs_parse_subcommand 1 'store=' 'actor=' 'override=+' 'force' 'version' 'h/help'
        case 'log'
            __prefs_parse_subcommand 2 'store=' 'actor=' 'override=+' 'limit=' 'since=' 'json' 'retain=' 'version' 'h/help'
        case 'watch'
            __prefs_parse_subcommand -r 3 'store=' 'actor=' 'override=+' 'prefix=' 'json' 'once' 'version' 'h/help'
        case 'schema'
            __prefs_parse_subcommand 0 'version' 'h/help'
            switch $unparsed_tokens[1]
            case 'load'
                __prefs_parse_subcommand 1 'store=' 'actor=' 'override=+' 'version' 'h/help'
            case 'show'
                __prefs_parse_subcommand 0 'store=' 'actor=' 'override=+' 'version' 'h/help'
            end
        case 'describe'
            __prefs_parse_subcommand 2 'store=' 'actor=' 'override=+' 'json' 'version' 'h/help'
        case 'reset'
            __prefs_parse_subcommand -r 2 'store=' 'actor=' 'override=+' 'all' 'prefix=' 'version' 'h/help'
        case 'flag'
            __prefs_parse_subcommand 0 'version' 'h/help'
            switch $unparsed_tokens[1]
            case 'import'
                __prefs_parse_subcommand 1 'store=' 'actor=' 'override=+' 'replace' 'dry-run' 'version' 'h/help'
            case 'export'
                __prefs_parse_subcommand 0 'store=' 'actor=' 'override=+' 'o=' 'version' 'h/help'
            case 'list'
                __prefs_parse_subcommand 0 'store=' 'actor=' 'override=+' 'json' 'version' 'h/help'
            case 'show'
                __prefs_parse_subcommand 1 'store=' 'actor=' 'override=+' 'version' 'h/help'
            case 'eval'
                __prefs_parse_subcommand 1 'store=' 'actor=' 'override=+' 'type=' 'default=' 'strict' 'context=' 'targeting-key=' 'fractional-version=' 'json' 'version' 'h/help'
            case 'enabled'
                __prefs_parse_subcommand 1 'store=' 'actor=' 'override=+' 'context=' 'targeting-key=' 'fractional-version=' 'version' 'h/help'
            case 'enable'
                __prefs_parse_subcommand 1 'store=' 'actor=' 'override=+' 'version' 'h/help'
            case 'default'
                __prefs_parse_subcommand 2 'store=' 'actor=' 'override=+' 'if-version=' 'version' 'h/help'
            case 'disable'
                __prefs_parse_subcommand 1 'store=' 'actor=' 'override=+' 'version' 'h/help'
            case 'config'
                __prefs_parse_subcommand 2 'store=' 'actor=' 'override=+' 'unset' 'version' 'h/help'
            case 'explain'
                __prefs_parse_subcommand 1 'store=' 'actor=' 'override=+' 'context=' 'targeting-key=' 'type=' 'default=' 'document=' 'fractional-version=' 'json' 'version' 'h/help'
            case 'diff'
                __prefs_parse_subcommand 2 'store=' 'actor=' 'override=+' 'contexts=' 'synthetic=' 'seed=' 'examples=' 'fractional-version=' 'json' 'version' 'h/help'
            case 'stats'
                __prefs_parse_subcommand 1 'store=' 'actor=' 'override=+' 'contexts=' 'synthetic=' 'seed=' 'document=' 'fractional-version=' 'json' 'version' 'h/help'
            case 'lint'
                __prefs_parse_subcommand 1 'store=' 'actor=' 'override=+' 'format=' 'version' 'h/help'
            end
        case 'refresh'
            __prefs_parse_subcommand 1 'store=' 'actor=' 'override=+' 'from=' 'timeout=' 'header=+' 'header-file=+' 'max-age=' 'status' 'json' 'version' 'h/help'
        case 'remote'
            __prefs_parse_subcommand 0 'version' 'h/help'
            switch $unparsed_tokens[1]
            case 'set'
                __prefs_parse_subcommand 1 'store=' 'actor=' 'override=+' 'domains=' 'version' 'h/help'
            case 'show'
                __prefs_parse_subcommand 0 'store=' 'actor=' 'override=+' 'json' 'version' 'h/help'
            case 'unset'
                __prefs_parse_subcommand 0 'store=' 'actor=' 'override=+' 'version' 'h/help'
            end
        case 'sync'
            __prefs_parse_subcommand -r 1 'store=' 'actor=' 'override=+' 'status' 'json' 'watch=' 'compact' 'horizon=' 'timeout=' 'version' 'h/help'
        case 'serve'
            __prefs_parse_subcommand 0 'store=' 'actor=' 'override=+' 'listen=' 'token-file=' 'max-body=' 'read-timeout=' 'head-timeout=' 'max-connections-per-address=' 'max-event-streams=' 'max-steps=' 'no-access-log' 'version' 'h/help'
        case 'doctor'
            __prefs_parse_subcommand 0 'store=' 'actor=' 'override=+' 'json' 'fix' 'all' 'version' 'h/help'
        case 'compact'
            __prefs_parse_subcommand 0 'store=' 'actor=' 'override=+' 'version' 'h/help'
        case 'backup'
            __prefs_parse_subcommand 1 'store=' 'actor=' 'override=+' 'force' 'version' 'h/help'
        case 'restore'
            __prefs_parse_subcommand 1 'store=' 'actor=' 'override=+' 'force' 'with-sources' 'version' 'h/help'
        case 'edit'
            __prefs_parse_subcommand 2 'store=' 'actor=' 'override=+' 'version' 'h/help'
        case 'help'
            __prefs_parse_subcommand -r 1 'version'
        end
    end
end

function __prefs_tokens
    if test (string split -m 1 -f 1 -- . "$FISH_VERSION") -gt 3
        commandline --tokens-raw $argv
    else
        commandline -o $argv
    end
end

function __prefs_parse_subcommand -S -a positional_count
    argparse -s r -- $argv
    set -l option_specs $argv[2..]
    set -l is_repeating_positional $_flag_r
    set -el _flag_r
    set -a commands $unparsed_tokens[1]
    set positional_index 0
    while true
        set -e unparsed_tokens[1]
        argparse -sn "$commands" $option_specs -- $unparsed_tokens 2> /dev/null
        set unparsed_tokens $argv
        set positional_index (math $positional_index + 1)
        for non_repeating_flag_or_option in $non_repeating_flags_or_options
            if set -ql "_flag_$(string replace -a - _ -- $non_repeating_flag_or_option)"
                set non_repeating_flags_or_options_absent 1
                break
            end
        end
        test (count $unparsed_tokens) -eq 0 -o \( -z "$is_repeating_positional" -a "$positional_index" -gt "$positional_count" \) && break
    end
end

function __prefs_complete_directories
    set -l token (commandline -t)
    string match -- '*/' $token
    set -l subdirs $token*/
    printf %s\n $subdirs
end

function __prefs_custom_completion
    set -x SAP_SHELL fish
    set -x SAP_SHELL_VERSION $FISH_VERSION
    set -l tokens (__prefs_tokens -p)
    if test -z "$(__prefs_tokens -t)"
        set -l index (count (__prefs_tokens -pc))
        set tokens $tokens[..$index] \'\' $tokens[(math $index + 1)..]
    end
    command $tokens[1] $argv $tokens
end

complete -c 'prefs' -f
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs" store' -l 'store' -d 'The store file (default: $PREFS_STORE, else $XDG_DATA_HOME/prefs/prefs.db, else ~/.local/share/prefs/prefs.db).' -rF
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs" actor' -l 'actor' -d 'Who the change log names for this command\'s writes (default: $PREFS_ACTOR, else USER@HOST).' -rfka ''
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs"' -l 'override' -d 'Read VALUE for DOMAIN:KEY in this invocation instead of the store (repeatable; never written). Also $PREFS_OVERRIDES, a JSON object {"domain":{"key":value}}.' -rfka ''
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs" version' -l 'version' -d 'Show the version.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_positional "prefs" -eq 1' -fa 'get' -d 'Print the value of a key (or of several keys, or of every key with a prefix).'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_positional "prefs" -eq 1' -fa 'set' -d 'Store a value under a key.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_positional "prefs" -eq 1' -fa 'rm' -d 'Remove keys.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_positional "prefs" -eq 1' -fa 'list' -d 'List keys and values.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_positional "prefs" -eq 1' -fa 'domains' -d 'List the domains: the built-in ones and every custom domain written to.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_positional "prefs" -eq 1' -fa 'writable' -d 'Tell whether a key may be written: exit 0 if so, 1 if a system lock covers it.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_positional "prefs" -eq 1' -fa 'export' -d 'Write domains as one JSON object {"domain":{"key":value}}.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_positional "prefs" -eq 1' -fa 'import' -d 'Load a JSON object {"domain":{"key":value}} into the store.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_positional "prefs" -eq 1' -fa 'exec' -d 'Run a command with a domain\'s values in its environment.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_positional "prefs" -eq 1' -fa 'batch' -d 'Apply commands from standard input through the debounce write queue.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_positional "prefs" -eq 1' -fa 'incr' -d 'Atomically add to an integer and print the new value.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_positional "prefs" -eq 1' -fa 'apply' -d 'Apply a JSON array of operations in one transaction: all or none.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_positional "prefs" -eq 1' -fa 'log' -d 'Show the change log, newest first.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_positional "prefs" -eq 1' -fa 'watch' -d 'Print every change made by any process as it is committed.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_positional "prefs" -eq 1' -fa 'schema' -d 'Load or show the schema: typed keys with defaults and constraints.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_positional "prefs" -eq 1' -fa 'describe' -d 'Show a key\'s type, default, constraints, description and current value with its origin.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_positional "prefs" -eq 1' -fa 'reset' -d 'Remove stored values so the defaults answer again (logged as reset).'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_positional "prefs" -eq 1' -fa 'flag' -d 'Feature flags in the switch domain, in OpenFeature flagd\'s format.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_positional "prefs" -eq 1' -fa 'refresh' -d 'Refresh a server-fed domain from a URL or a file; keep the last good copy on failure.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_positional "prefs" -eq 1' -fa 'remote' -d 'Set, show or unset the PostgreSQL database this store syncs with.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_positional "prefs" -eq 1' -fa 'sync' -d 'Pull remote operations, apply them, push pending ones (offline first; exit 7 when unreachable).'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_positional "prefs" -eq 1' -fa 'serve' -d 'Serve the switch domain\'s flags over OFREP (OpenFeature) and a read-only web inspector.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_positional "prefs" -eq 1' -fa 'doctor' -d 'Check the store: integrity, schema version and objects, values, WAL, permissions, its memory file, leftover temporary copies, expired keys.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_positional "prefs" -eq 1' -fa 'compact' -d 'Give the store file\'s free pages back while other processes keep using it.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_positional "prefs" -eq 1' -fa 'backup' -d 'Write a consistent copy of the store while other processes keep writing (mode 0600).'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_positional "prefs" -eq 1' -fa 'restore' -d 'Replace the store\'s content with a backup, while other processes keep using it.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_positional "prefs" -eq 1' -fa 'edit' -d 'Edit a key\'s value, or a whole domain, in $VISUAL or $EDITOR.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_positional "prefs" -eq 1' -fa 'help' -d 'Show subcommand help information.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs get" store' -l 'store' -d 'The store file (default: $PREFS_STORE, else $XDG_DATA_HOME/prefs/prefs.db, else ~/.local/share/prefs/prefs.db).' -rF
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs get" actor' -l 'actor' -d 'Who the change log names for this command\'s writes (default: $PREFS_ACTOR, else USER@HOST).' -rfka ''
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs get"' -l 'override' -d 'Read VALUE for DOMAIN:KEY in this invocation instead of the store (repeatable; never written). Also $PREFS_OVERRIDES, a JSON object {"domain":{"key":value}}.' -rfka ''
complete -c 'prefs' -n '__prefs_should_offer_completions_for_positional "prefs get" -eq 1' -fka '(__prefs_custom_completion ---completion get -- positional@0 (count (__prefs_tokens -pc)) (__prefs_tokens -tC))'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_positional "prefs get" -ge 2' -fka '(__prefs_custom_completion ---completion get -- positional@1 (count (__prefs_tokens -pc)) (__prefs_tokens -tC))'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs get" prefix' -l 'prefix' -d 'Every key that starts with this text.' -rfka ''
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs get" default' -l 'default' -d 'Print this value (typed as in \'set\') when the key is missing; exit 0.' -rfka ''
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs get" json' -l 'json' -d 'Always print JSON (strings in quotes).'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs get" show-meta' -l 'show-meta' -d 'Print one JSON object with the value, version, updatedAt and expiresAt.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs get" show-origin' -l 'show-origin' -d 'Print where the value came from first: override, store, project:FILE, system:FILE, locked:LOCKFILE, default (registered in code), schema (the schema\'s default) or fallback (--default), then a tab.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs get" path' -l 'path' -d 'Print the member at this JSON Pointer inside the value (/window/w, /tags/0).' -rfka ''
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs get" version' -l 'version' -d 'Show the version.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs get" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs set" store' -l 'store' -d 'The store file (default: $PREFS_STORE, else $XDG_DATA_HOME/prefs/prefs.db, else ~/.local/share/prefs/prefs.db).' -rF
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs set" actor' -l 'actor' -d 'Who the change log names for this command\'s writes (default: $PREFS_ACTOR, else USER@HOST).' -rfka ''
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs set"' -l 'override' -d 'Read VALUE for DOMAIN:KEY in this invocation instead of the store (repeatable; never written). Also $PREFS_OVERRIDES, a JSON object {"domain":{"key":value}}.' -rfka ''
complete -c 'prefs' -n '__prefs_should_offer_completions_for_positional "prefs set" -eq 1' -fka '(__prefs_custom_completion ---completion set -- positional@0 (count (__prefs_tokens -pc)) (__prefs_tokens -tC))'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_positional "prefs set" -eq 2' -fka '(__prefs_custom_completion ---completion set -- positional@1 (count (__prefs_tokens -pc)) (__prefs_tokens -tC))'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_positional "prefs set" -ge 3' -fka '(__prefs_custom_completion ---completion set -- positional@2 (count (__prefs_tokens -pc)) (__prefs_tokens -tC))'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs set" string' -l 'string' -d 'Store VALUE verbatim as a string.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs set" type' -l 'type' -d 'Require this type: string, number, integer, boolean, object, array or json.' -rfka 'string number integer boolean object array json'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs set" force' -l 'force' -d 'Skip the schema\'s checks (with a warning).'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs set" ttl' -l 'ttl' -d 'Expire the key after this long: 30s, 15m, 2h, 7d.' -rfka ''
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs set" if-version' -l 'if-version' -d 'Write only if the key is at this version (exit 5 otherwise).' -rfka ''
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs set" if-absent' -l 'if-absent' -d 'Write only if the key does not exist (exit 5 otherwise).'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs set" if-value' -l 'if-value' -d 'Write only if the key holds this JSON value (exit 5 otherwise).' -rfka ''
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs set" path' -l 'path' -d 'Set the member at this JSON Pointer inside the value (/window/w; /tags/- appends).' -rfka ''
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs set" project' -l 'project' -d 'Write the project file (.prefs.json) instead of the store.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs set" version' -l 'version' -d 'Show the version.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs set" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs rm" store' -l 'store' -d 'The store file (default: $PREFS_STORE, else $XDG_DATA_HOME/prefs/prefs.db, else ~/.local/share/prefs/prefs.db).' -rF
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs rm" actor' -l 'actor' -d 'Who the change log names for this command\'s writes (default: $PREFS_ACTOR, else USER@HOST).' -rfka ''
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs rm"' -l 'override' -d 'Read VALUE for DOMAIN:KEY in this invocation instead of the store (repeatable; never written). Also $PREFS_OVERRIDES, a JSON object {"domain":{"key":value}}.' -rfka ''
complete -c 'prefs' -n '__prefs_should_offer_completions_for_positional "prefs rm" -eq 1' -fka '(__prefs_custom_completion ---completion rm -- positional@0 (count (__prefs_tokens -pc)) (__prefs_tokens -tC))'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_positional "prefs rm" -ge 2' -fka '(__prefs_custom_completion ---completion rm -- positional@1 (count (__prefs_tokens -pc)) (__prefs_tokens -tC))'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs rm" prefix' -l 'prefix' -d 'Remove every key that starts with this text.' -rfka ''
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs rm" must-exist' -l 'must-exist' -d 'Exit 1 and remove nothing when a key does not exist.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs rm" domain' -l 'domain' -d 'Remove the whole domain (no keys given).'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs rm" force' -l 'force' -d 'With --domain: remove every key of a built-in domain.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs rm" if-version' -l 'if-version' -d 'Remove only if the key is at this version (exit 5 otherwise).' -rfka ''
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs rm" if-value' -l 'if-value' -d 'Remove only if the key holds this JSON value (exit 5 otherwise).' -rfka ''
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs rm" if-absent' -l 'if-absent' -d 'Succeed only if the key does not exist (exit 5 otherwise); removes nothing.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs rm" project' -l 'project' -d 'Remove the keys from the project file (.prefs.json) instead of the store.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs rm" version' -l 'version' -d 'Show the version.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs rm" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs list" store' -l 'store' -d 'The store file (default: $PREFS_STORE, else $XDG_DATA_HOME/prefs/prefs.db, else ~/.local/share/prefs/prefs.db).' -rF
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs list" actor' -l 'actor' -d 'Who the change log names for this command\'s writes (default: $PREFS_ACTOR, else USER@HOST).' -rfka ''
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs list"' -l 'override' -d 'Read VALUE for DOMAIN:KEY in this invocation instead of the store (repeatable; never written). Also $PREFS_OVERRIDES, a JSON object {"domain":{"key":value}}.' -rfka ''
complete -c 'prefs' -n '__prefs_should_offer_completions_for_positional "prefs list" -eq 1' -fka '(__prefs_custom_completion ---completion list -- positional@0 (count (__prefs_tokens -pc)) (__prefs_tokens -tC))'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs list" prefix' -l 'prefix' -d 'Only keys that start with this text.' -rfka ''
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs list" keys-only' -l 'keys-only' -d 'Print keys without values.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs list" json' -l 'json' -d 'Print one JSON object.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs list" z' -s 'z' -d 'End records with NUL instead of newline.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs list" meta' -l 'meta' -d 'With --json: each value as {value, version, updatedAt, expiresAt}.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs list" show-origin' -l 'show-origin' -d 'Start each line with the origin (override, store, project:FILE, system:FILE, locked:LOCKFILE, default or schema) and a tab; with --json, {value, origin}.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs list" allow-missing' -l 'allow-missing' -d 'A DOMAIN that does not exist lists as an empty one (exit 0), not exit 1.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs list" version' -l 'version' -d 'Show the version.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs list" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs domains" store' -l 'store' -d 'The store file (default: $PREFS_STORE, else $XDG_DATA_HOME/prefs/prefs.db, else ~/.local/share/prefs/prefs.db).' -rF
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs domains" actor' -l 'actor' -d 'Who the change log names for this command\'s writes (default: $PREFS_ACTOR, else USER@HOST).' -rfka ''
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs domains"' -l 'override' -d 'Read VALUE for DOMAIN:KEY in this invocation instead of the store (repeatable; never written). Also $PREFS_OVERRIDES, a JSON object {"domain":{"key":value}}.' -rfka ''
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs domains" json' -l 'json' -d 'Print a JSON array.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs domains" version' -l 'version' -d 'Show the version.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs domains" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs writable" store' -l 'store' -d 'The store file (default: $PREFS_STORE, else $XDG_DATA_HOME/prefs/prefs.db, else ~/.local/share/prefs/prefs.db).' -rF
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs writable" actor' -l 'actor' -d 'Who the change log names for this command\'s writes (default: $PREFS_ACTOR, else USER@HOST).' -rfka ''
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs writable"' -l 'override' -d 'Read VALUE for DOMAIN:KEY in this invocation instead of the store (repeatable; never written). Also $PREFS_OVERRIDES, a JSON object {"domain":{"key":value}}.' -rfka ''
complete -c 'prefs' -n '__prefs_should_offer_completions_for_positional "prefs writable" -eq 1' -fka '(__prefs_custom_completion ---completion writable -- positional@0 (count (__prefs_tokens -pc)) (__prefs_tokens -tC))'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_positional "prefs writable" -eq 2' -fka '(__prefs_custom_completion ---completion writable -- positional@1 (count (__prefs_tokens -pc)) (__prefs_tokens -tC))'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs writable" version' -l 'version' -d 'Show the version.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs writable" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs export" store' -l 'store' -d 'The store file (default: $PREFS_STORE, else $XDG_DATA_HOME/prefs/prefs.db, else ~/.local/share/prefs/prefs.db).' -rF
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs export" actor' -l 'actor' -d 'Who the change log names for this command\'s writes (default: $PREFS_ACTOR, else USER@HOST).' -rfka ''
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs export"' -l 'override' -d 'Read VALUE for DOMAIN:KEY in this invocation instead of the store (repeatable; never written). Also $PREFS_OVERRIDES, a JSON object {"domain":{"key":value}}.' -rfka ''
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs export" o' -s 'o' -d 'Write to this file (mode 0600) instead of standard output (- for standard output).' -rF
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs export" pretty' -l 'pretty' -d 'Indent the JSON.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs export" format' -l 'format' -d 'json (default), env, dotenv or github.' -rfka 'json env dotenv github'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs export" name-prefix' -l 'name-prefix' -d 'With --format env|dotenv|github: start every NAME with this ([A-Z_][A-Z0-9_]*).' -rfka ''
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs export" effective' -l 'effective' -d 'Export what reads answer: overrides and registered defaults included.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs export" allow-missing' -l 'allow-missing' -d 'A DOMAIN that does not exist is exported as an empty one (exit 0), not exit 1.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs export" version' -l 'version' -d 'Show the version.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs export" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs import" store' -l 'store' -d 'The store file (default: $PREFS_STORE, else $XDG_DATA_HOME/prefs/prefs.db, else ~/.local/share/prefs/prefs.db).' -rF
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs import" actor' -l 'actor' -d 'Who the change log names for this command\'s writes (default: $PREFS_ACTOR, else USER@HOST).' -rfka ''
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs import"' -l 'override' -d 'Read VALUE for DOMAIN:KEY in this invocation instead of the store (repeatable; never written). Also $PREFS_OVERRIDES, a JSON object {"domain":{"key":value}}.' -rfka ''
complete -c 'prefs' -n '__prefs_should_offer_completions_for_positional "prefs import" -eq 1' -F
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs import" replace' -l 'replace' -d 'Make each domain named in the file exactly the file\'s content.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs import" dry-run' -l 'dry-run' -d 'Print what would change and write nothing.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs import" force' -l 'force' -d 'Skip the schema\'s checks (with a warning).'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs import" version' -l 'version' -d 'Show the version.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs import" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs exec" store' -l 'store' -d 'The store file (default: $PREFS_STORE, else $XDG_DATA_HOME/prefs/prefs.db, else ~/.local/share/prefs/prefs.db).' -rF
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs exec" actor' -l 'actor' -d 'Who the change log names for this command\'s writes (default: $PREFS_ACTOR, else USER@HOST).' -rfka ''
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs exec"' -l 'override' -d 'Read VALUE for DOMAIN:KEY in this invocation instead of the store (repeatable; never written). Also $PREFS_OVERRIDES, a JSON object {"domain":{"key":value}}.' -rfka ''
complete -c 'prefs' -n '__prefs_should_offer_completions_for_positional "prefs exec" -eq 1' -fka '(__prefs_custom_completion ---completion exec -- positional@0 (count (__prefs_tokens -pc)) (__prefs_tokens -tC))'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs exec" name-prefix' -l 'name-prefix' -d 'Start every NAME with this ([A-Z_][A-Z0-9_]*).' -rfka ''
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs exec" restart' -l 'restart' -d 'Stop and start the command again with the new values when they change.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs exec" signal' -l 'signal' -d 'Send this signal (HUP, USR1, ... or a number) when the values change.' -rfka ''
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs exec" version' -l 'version' -d 'Show the version.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs exec" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs batch" store' -l 'store' -d 'The store file (default: $PREFS_STORE, else $XDG_DATA_HOME/prefs/prefs.db, else ~/.local/share/prefs/prefs.db).' -rF
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs batch" actor' -l 'actor' -d 'Who the change log names for this command\'s writes (default: $PREFS_ACTOR, else USER@HOST).' -rfka ''
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs batch"' -l 'override' -d 'Read VALUE for DOMAIN:KEY in this invocation instead of the store (repeatable; never written). Also $PREFS_OVERRIDES, a JSON object {"domain":{"key":value}}.' -rfka ''
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs batch" window' -l 'window' -d 'The debounce window: 1s, 250ms, 1ms, 2m (at least 1ms).' -rfka ''
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs batch" force' -l 'force' -d 'Skip the schema\'s checks (with a warning).'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs batch" version' -l 'version' -d 'Show the version.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs batch" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs incr" store' -l 'store' -d 'The store file (default: $PREFS_STORE, else $XDG_DATA_HOME/prefs/prefs.db, else ~/.local/share/prefs/prefs.db).' -rF
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs incr" actor' -l 'actor' -d 'Who the change log names for this command\'s writes (default: $PREFS_ACTOR, else USER@HOST).' -rfka ''
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs incr"' -l 'override' -d 'Read VALUE for DOMAIN:KEY in this invocation instead of the store (repeatable; never written). Also $PREFS_OVERRIDES, a JSON object {"domain":{"key":value}}.' -rfka ''
complete -c 'prefs' -n '__prefs_should_offer_completions_for_positional "prefs incr" -eq 1' -fka '(__prefs_custom_completion ---completion incr -- positional@0 (count (__prefs_tokens -pc)) (__prefs_tokens -tC))'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_positional "prefs incr" -eq 2' -fka '(__prefs_custom_completion ---completion incr -- positional@1 (count (__prefs_tokens -pc)) (__prefs_tokens -tC))'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs incr" by' -l 'by' -d 'The amount to add (default 1; negative subtracts).' -rfka ''
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs incr" version' -l 'version' -d 'Show the version.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs incr" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs apply" store' -l 'store' -d 'The store file (default: $PREFS_STORE, else $XDG_DATA_HOME/prefs/prefs.db, else ~/.local/share/prefs/prefs.db).' -rF
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs apply" actor' -l 'actor' -d 'Who the change log names for this command\'s writes (default: $PREFS_ACTOR, else USER@HOST).' -rfka ''
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs apply"' -l 'override' -d 'Read VALUE for DOMAIN:KEY in this invocation instead of the store (repeatable; never written). Also $PREFS_OVERRIDES, a JSON object {"domain":{"key":value}}.' -rfka ''
complete -c 'prefs' -n '__prefs_should_offer_completions_for_positional "prefs apply" -eq 1' -F
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs apply" force' -l 'force' -d 'Skip the schema\'s checks (with a warning).'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs apply" version' -l 'version' -d 'Show the version.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs apply" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs log" store' -l 'store' -d 'The store file (default: $PREFS_STORE, else $XDG_DATA_HOME/prefs/prefs.db, else ~/.local/share/prefs/prefs.db).' -rF
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs log" actor' -l 'actor' -d 'Who the change log names for this command\'s writes (default: $PREFS_ACTOR, else USER@HOST).' -rfka ''
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs log"' -l 'override' -d 'Read VALUE for DOMAIN:KEY in this invocation instead of the store (repeatable; never written). Also $PREFS_OVERRIDES, a JSON object {"domain":{"key":value}}.' -rfka ''
complete -c 'prefs' -n '__prefs_should_offer_completions_for_positional "prefs log" -eq 1' -fka '(__prefs_custom_completion ---completion log -- positional@0 (count (__prefs_tokens -pc)) (__prefs_tokens -tC))'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_positional "prefs log" -eq 2' -fka '(__prefs_custom_completion ---completion log -- positional@1 (count (__prefs_tokens -pc)) (__prefs_tokens -tC))'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs log" limit' -l 'limit' -d 'At most this many records.' -rfka ''
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs log" since' -l 'since' -d 'Only changes since an ISO 8601 time or a duration ago (10m, 7d).' -rfka ''
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs log" json' -l 'json' -d 'Print JSON Lines.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs log" retain' -l 'retain' -d 'Keep only the newest N records from now on (and prune now).' -rfka ''
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs log" version' -l 'version' -d 'Show the version.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs log" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs watch" store' -l 'store' -d 'The store file (default: $PREFS_STORE, else $XDG_DATA_HOME/prefs/prefs.db, else ~/.local/share/prefs/prefs.db).' -rF
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs watch" actor' -l 'actor' -d 'Who the change log names for this command\'s writes (default: $PREFS_ACTOR, else USER@HOST).' -rfka ''
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs watch"' -l 'override' -d 'Read VALUE for DOMAIN:KEY in this invocation instead of the store (repeatable; never written). Also $PREFS_OVERRIDES, a JSON object {"domain":{"key":value}}.' -rfka ''
complete -c 'prefs' -n '__prefs_should_offer_completions_for_positional "prefs watch" -eq 1' -fka '(__prefs_custom_completion ---completion watch -- positional@0 (count (__prefs_tokens -pc)) (__prefs_tokens -tC))'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_positional "prefs watch" -eq 2' -fka '(__prefs_custom_completion ---completion watch -- positional@1 (count (__prefs_tokens -pc)) (__prefs_tokens -tC))'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs watch" prefix' -l 'prefix' -d 'Only keys that start with this text.' -rfka ''
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs watch" json' -l 'json' -d 'Print one JSON object per change.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs watch" once' -l 'once' -d 'Exit after the first change.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs watch" version' -l 'version' -d 'Show the version.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs watch" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs schema" version' -l 'version' -d 'Show the version.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs schema" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_positional "prefs schema" -eq 1' -fa 'load' -d 'Check a schema file and make it the store\'s schema.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_positional "prefs schema" -eq 1' -fa 'show' -d 'Print the active schema ({} when none is loaded).'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs schema load" store' -l 'store' -d 'The store file (default: $PREFS_STORE, else $XDG_DATA_HOME/prefs/prefs.db, else ~/.local/share/prefs/prefs.db).' -rF
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs schema load" actor' -l 'actor' -d 'Who the change log names for this command\'s writes (default: $PREFS_ACTOR, else USER@HOST).' -rfka ''
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs schema load"' -l 'override' -d 'Read VALUE for DOMAIN:KEY in this invocation instead of the store (repeatable; never written). Also $PREFS_OVERRIDES, a JSON object {"domain":{"key":value}}.' -rfka ''
complete -c 'prefs' -n '__prefs_should_offer_completions_for_positional "prefs schema load" -eq 1' -F
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs schema load" version' -l 'version' -d 'Show the version.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs schema load" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs schema show" store' -l 'store' -d 'The store file (default: $PREFS_STORE, else $XDG_DATA_HOME/prefs/prefs.db, else ~/.local/share/prefs/prefs.db).' -rF
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs schema show" actor' -l 'actor' -d 'Who the change log names for this command\'s writes (default: $PREFS_ACTOR, else USER@HOST).' -rfka ''
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs schema show"' -l 'override' -d 'Read VALUE for DOMAIN:KEY in this invocation instead of the store (repeatable; never written). Also $PREFS_OVERRIDES, a JSON object {"domain":{"key":value}}.' -rfka ''
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs schema show" version' -l 'version' -d 'Show the version.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs schema show" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs describe" store' -l 'store' -d 'The store file (default: $PREFS_STORE, else $XDG_DATA_HOME/prefs/prefs.db, else ~/.local/share/prefs/prefs.db).' -rF
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs describe" actor' -l 'actor' -d 'Who the change log names for this command\'s writes (default: $PREFS_ACTOR, else USER@HOST).' -rfka ''
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs describe"' -l 'override' -d 'Read VALUE for DOMAIN:KEY in this invocation instead of the store (repeatable; never written). Also $PREFS_OVERRIDES, a JSON object {"domain":{"key":value}}.' -rfka ''
complete -c 'prefs' -n '__prefs_should_offer_completions_for_positional "prefs describe" -eq 1' -fka '(__prefs_custom_completion ---completion describe -- positional@0 (count (__prefs_tokens -pc)) (__prefs_tokens -tC))'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_positional "prefs describe" -eq 2' -fka '(__prefs_custom_completion ---completion describe -- positional@1 (count (__prefs_tokens -pc)) (__prefs_tokens -tC))'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs describe" json' -l 'json' -d 'Print one JSON object.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs describe" version' -l 'version' -d 'Show the version.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs describe" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs reset" store' -l 'store' -d 'The store file (default: $PREFS_STORE, else $XDG_DATA_HOME/prefs/prefs.db, else ~/.local/share/prefs/prefs.db).' -rF
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs reset" actor' -l 'actor' -d 'Who the change log names for this command\'s writes (default: $PREFS_ACTOR, else USER@HOST).' -rfka ''
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs reset"' -l 'override' -d 'Read VALUE for DOMAIN:KEY in this invocation instead of the store (repeatable; never written). Also $PREFS_OVERRIDES, a JSON object {"domain":{"key":value}}.' -rfka ''
complete -c 'prefs' -n '__prefs_should_offer_completions_for_positional "prefs reset" -eq 1' -fka '(__prefs_custom_completion ---completion reset -- positional@0 (count (__prefs_tokens -pc)) (__prefs_tokens -tC))'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_positional "prefs reset" -ge 2' -fka '(__prefs_custom_completion ---completion reset -- positional@1 (count (__prefs_tokens -pc)) (__prefs_tokens -tC))'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs reset" all' -l 'all' -d 'Reset every key of the domain.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs reset" prefix' -l 'prefix' -d 'Reset every key that starts with this text.' -rfka ''
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs reset" version' -l 'version' -d 'Show the version.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs reset" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs flag" version' -l 'version' -d 'Show the version.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs flag" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_positional "prefs flag" -eq 1' -fa 'import' -d 'Load a flagd document into switch (flags, $evaluators, metadata).'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_positional "prefs flag" -eq 1' -fa 'export' -d 'Write switch as a flagd document.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_positional "prefs flag" -eq 1' -fa 'list' -d 'List flags: KEY, STATE, TYPE, DEFAULT VARIANT, TARGETING (yes/no), VARIANTS, tab-separated.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_positional "prefs flag" -eq 1' -fa 'show' -d 'Print a flag\'s definition.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_positional "prefs flag" -eq 1' -fa 'eval' -d 'Evaluate a flag for a context.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_positional "prefs flag" -eq 1' -fa 'enabled' -d 'Exit 0 when the flag evaluates to true, 1 otherwise, 2 when there is no such flag (for shell conditions).'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_positional "prefs flag" -eq 1' -fa 'enable' -d 'Set a flag\'s state to ENABLED.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_positional "prefs flag" -eq 1' -fa 'default' -d 'Set a flag\'s defaultVariant (turn a kill switch on: prefs flag default deploy-frozen on).'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_positional "prefs flag" -eq 1' -fa 'disable' -d 'Set a flag\'s state to DISABLED.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_positional "prefs flag" -eq 1' -fa 'config' -d 'Show or set a flag setting of the store: fractional-version 1|2|3.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_positional "prefs flag" -eq 1' -fa 'explain' -d 'Show why a flag evaluates as it does: every rule node with its inputs and result.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_positional "prefs flag" -eq 1' -fa 'diff' -d 'Show which contexts change variant between two flag documents (exit 0 none, 1 changes).'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_positional "prefs flag" -eq 1' -fa 'stats' -d 'Show how a flag\'s variants spread over contexts, with a bar chart on a terminal.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_positional "prefs flag" -eq 1' -fa 'lint' -d 'Check a flagd document beyond validity; exit 1 on an error-level finding.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs flag import" store' -l 'store' -d 'The store file (default: $PREFS_STORE, else $XDG_DATA_HOME/prefs/prefs.db, else ~/.local/share/prefs/prefs.db).' -rF
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs flag import" actor' -l 'actor' -d 'Who the change log names for this command\'s writes (default: $PREFS_ACTOR, else USER@HOST).' -rfka ''
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs flag import"' -l 'override' -d 'Read VALUE for DOMAIN:KEY in this invocation instead of the store (repeatable; never written). Also $PREFS_OVERRIDES, a JSON object {"domain":{"key":value}}.' -rfka ''
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs flag import" replace' -l 'replace' -d 'Make the switch domain exactly the document\'s flags.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs flag import" dry-run' -l 'dry-run' -d 'Print what would change and write nothing.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs flag import" version' -l 'version' -d 'Show the version.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs flag import" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs flag export" store' -l 'store' -d 'The store file (default: $PREFS_STORE, else $XDG_DATA_HOME/prefs/prefs.db, else ~/.local/share/prefs/prefs.db).' -rF
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs flag export" actor' -l 'actor' -d 'Who the change log names for this command\'s writes (default: $PREFS_ACTOR, else USER@HOST).' -rfka ''
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs flag export"' -l 'override' -d 'Read VALUE for DOMAIN:KEY in this invocation instead of the store (repeatable; never written). Also $PREFS_OVERRIDES, a JSON object {"domain":{"key":value}}.' -rfka ''
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs flag export" o' -s 'o' -d 'Write to this file instead of standard output.' -rfka ''
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs flag export" version' -l 'version' -d 'Show the version.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs flag export" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs flag list" store' -l 'store' -d 'The store file (default: $PREFS_STORE, else $XDG_DATA_HOME/prefs/prefs.db, else ~/.local/share/prefs/prefs.db).' -rF
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs flag list" actor' -l 'actor' -d 'Who the change log names for this command\'s writes (default: $PREFS_ACTOR, else USER@HOST).' -rfka ''
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs flag list"' -l 'override' -d 'Read VALUE for DOMAIN:KEY in this invocation instead of the store (repeatable; never written). Also $PREFS_OVERRIDES, a JSON object {"domain":{"key":value}}.' -rfka ''
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs flag list" json' -l 'json' -d 'Print one JSON object per line.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs flag list" version' -l 'version' -d 'Show the version.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs flag list" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs flag show" store' -l 'store' -d 'The store file (default: $PREFS_STORE, else $XDG_DATA_HOME/prefs/prefs.db, else ~/.local/share/prefs/prefs.db).' -rF
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs flag show" actor' -l 'actor' -d 'Who the change log names for this command\'s writes (default: $PREFS_ACTOR, else USER@HOST).' -rfka ''
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs flag show"' -l 'override' -d 'Read VALUE for DOMAIN:KEY in this invocation instead of the store (repeatable; never written). Also $PREFS_OVERRIDES, a JSON object {"domain":{"key":value}}.' -rfka ''
complete -c 'prefs' -n '__prefs_should_offer_completions_for_positional "prefs flag show" -eq 1' -fka '(__prefs_custom_completion ---completion flag show -- positional@0 (count (__prefs_tokens -pc)) (__prefs_tokens -tC))'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs flag show" version' -l 'version' -d 'Show the version.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs flag show" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs flag eval" store' -l 'store' -d 'The store file (default: $PREFS_STORE, else $XDG_DATA_HOME/prefs/prefs.db, else ~/.local/share/prefs/prefs.db).' -rF
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs flag eval" actor' -l 'actor' -d 'Who the change log names for this command\'s writes (default: $PREFS_ACTOR, else USER@HOST).' -rfka ''
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs flag eval"' -l 'override' -d 'Read VALUE for DOMAIN:KEY in this invocation instead of the store (repeatable; never written). Also $PREFS_OVERRIDES, a JSON object {"domain":{"key":value}}.' -rfka ''
complete -c 'prefs' -n '__prefs_should_offer_completions_for_positional "prefs flag eval" -eq 1' -fka '(__prefs_custom_completion ---completion flag eval -- positional@0 (count (__prefs_tokens -pc)) (__prefs_tokens -tC))'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs flag eval" type' -l 'type' -d 'boolean, string, integer, float or object (default: the flag\'s variant type).' -rfka ''
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs flag eval" default' -l 'default' -d 'The value when the flag does not give one, read as the type.' -rfka ''
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs flag eval" strict' -l 'strict' -d 'A flag that does not exist is exit 1 even with --default (also PREFS_STRICT_FLAGS=1).'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs flag eval" context' -l 'context' -d 'The evaluation context, a JSON object.' -rfka ''
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs flag eval" targeting-key' -l 'targeting-key' -d 'The targeting key (the context\'s targetingKey); an empty one counts as absent.' -rfka ''
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs flag eval" fractional-version' -l 'fractional-version' -d 'fractional hashing: 3 (CBOR, current flagd; the default), 2 or 1 (older flagd); overrides prefs flag config.' -rfka ''
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs flag eval" json' -l 'json' -d 'Print the whole result as JSON.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs flag eval" version' -l 'version' -d 'Show the version.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs flag eval" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs flag enabled" store' -l 'store' -d 'The store file (default: $PREFS_STORE, else $XDG_DATA_HOME/prefs/prefs.db, else ~/.local/share/prefs/prefs.db).' -rF
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs flag enabled" actor' -l 'actor' -d 'Who the change log names for this command\'s writes (default: $PREFS_ACTOR, else USER@HOST).' -rfka ''
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs flag enabled"' -l 'override' -d 'Read VALUE for DOMAIN:KEY in this invocation instead of the store (repeatable; never written). Also $PREFS_OVERRIDES, a JSON object {"domain":{"key":value}}.' -rfka ''
complete -c 'prefs' -n '__prefs_should_offer_completions_for_positional "prefs flag enabled" -eq 1' -fka '(__prefs_custom_completion ---completion flag enabled -- positional@0 (count (__prefs_tokens -pc)) (__prefs_tokens -tC))'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs flag enabled" context' -l 'context' -d 'The evaluation context, a JSON object.' -rfka ''
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs flag enabled" targeting-key' -l 'targeting-key' -d 'The targeting key (the context\'s targetingKey); an empty one counts as absent.' -rfka ''
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs flag enabled" fractional-version' -l 'fractional-version' -d 'fractional hashing: 3 (CBOR, current flagd; the default), 2 or 1 (older flagd); overrides prefs flag config.' -rfka ''
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs flag enabled" version' -l 'version' -d 'Show the version.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs flag enabled" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs flag enable" store' -l 'store' -d 'The store file (default: $PREFS_STORE, else $XDG_DATA_HOME/prefs/prefs.db, else ~/.local/share/prefs/prefs.db).' -rF
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs flag enable" actor' -l 'actor' -d 'Who the change log names for this command\'s writes (default: $PREFS_ACTOR, else USER@HOST).' -rfka ''
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs flag enable"' -l 'override' -d 'Read VALUE for DOMAIN:KEY in this invocation instead of the store (repeatable; never written). Also $PREFS_OVERRIDES, a JSON object {"domain":{"key":value}}.' -rfka ''
complete -c 'prefs' -n '__prefs_should_offer_completions_for_positional "prefs flag enable" -eq 1' -fka '(__prefs_custom_completion ---completion flag enable -- positional@0 (count (__prefs_tokens -pc)) (__prefs_tokens -tC))'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs flag enable" version' -l 'version' -d 'Show the version.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs flag enable" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs flag default" store' -l 'store' -d 'The store file (default: $PREFS_STORE, else $XDG_DATA_HOME/prefs/prefs.db, else ~/.local/share/prefs/prefs.db).' -rF
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs flag default" actor' -l 'actor' -d 'Who the change log names for this command\'s writes (default: $PREFS_ACTOR, else USER@HOST).' -rfka ''
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs flag default"' -l 'override' -d 'Read VALUE for DOMAIN:KEY in this invocation instead of the store (repeatable; never written). Also $PREFS_OVERRIDES, a JSON object {"domain":{"key":value}}.' -rfka ''
complete -c 'prefs' -n '__prefs_should_offer_completions_for_positional "prefs flag default" -eq 1' -fka '(__prefs_custom_completion ---completion flag default -- positional@0 (count (__prefs_tokens -pc)) (__prefs_tokens -tC))'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs flag default" if-version' -l 'if-version' -d 'Write only if the flag is at this version (exit 5 otherwise).' -rfka ''
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs flag default" version' -l 'version' -d 'Show the version.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs flag default" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs flag disable" store' -l 'store' -d 'The store file (default: $PREFS_STORE, else $XDG_DATA_HOME/prefs/prefs.db, else ~/.local/share/prefs/prefs.db).' -rF
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs flag disable" actor' -l 'actor' -d 'Who the change log names for this command\'s writes (default: $PREFS_ACTOR, else USER@HOST).' -rfka ''
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs flag disable"' -l 'override' -d 'Read VALUE for DOMAIN:KEY in this invocation instead of the store (repeatable; never written). Also $PREFS_OVERRIDES, a JSON object {"domain":{"key":value}}.' -rfka ''
complete -c 'prefs' -n '__prefs_should_offer_completions_for_positional "prefs flag disable" -eq 1' -fka '(__prefs_custom_completion ---completion flag disable -- positional@0 (count (__prefs_tokens -pc)) (__prefs_tokens -tC))'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs flag disable" version' -l 'version' -d 'Show the version.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs flag disable" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs flag config" store' -l 'store' -d 'The store file (default: $PREFS_STORE, else $XDG_DATA_HOME/prefs/prefs.db, else ~/.local/share/prefs/prefs.db).' -rF
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs flag config" actor' -l 'actor' -d 'Who the change log names for this command\'s writes (default: $PREFS_ACTOR, else USER@HOST).' -rfka ''
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs flag config"' -l 'override' -d 'Read VALUE for DOMAIN:KEY in this invocation instead of the store (repeatable; never written). Also $PREFS_OVERRIDES, a JSON object {"domain":{"key":value}}.' -rfka ''
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs flag config" unset' -l 'unset' -d 'Remove the setting (back to the default, 3).'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs flag config" version' -l 'version' -d 'Show the version.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs flag config" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs flag explain" store' -l 'store' -d 'The store file (default: $PREFS_STORE, else $XDG_DATA_HOME/prefs/prefs.db, else ~/.local/share/prefs/prefs.db).' -rF
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs flag explain" actor' -l 'actor' -d 'Who the change log names for this command\'s writes (default: $PREFS_ACTOR, else USER@HOST).' -rfka ''
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs flag explain"' -l 'override' -d 'Read VALUE for DOMAIN:KEY in this invocation instead of the store (repeatable; never written). Also $PREFS_OVERRIDES, a JSON object {"domain":{"key":value}}.' -rfka ''
complete -c 'prefs' -n '__prefs_should_offer_completions_for_positional "prefs flag explain" -eq 1' -fka '(__prefs_custom_completion ---completion flag explain -- positional@0 (count (__prefs_tokens -pc)) (__prefs_tokens -tC))'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs flag explain" context' -l 'context' -d 'The evaluation context: a JSON object, or @FILE to read one from a file.' -rfka ''
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs flag explain" targeting-key' -l 'targeting-key' -d 'The targeting key (the context\'s targetingKey); an empty one counts as absent.' -rfka ''
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs flag explain" type' -l 'type' -d 'boolean, string, integer, float or object (default: the flag\'s variant type).' -rfka ''
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs flag explain" default' -l 'default' -d 'The caller\'s default, read as --type (needs --type).' -rfka ''
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs flag explain" document' -l 'document' -d 'Explain a flag of this flagd file instead of the store.' -rfka ''
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs flag explain" fractional-version' -l 'fractional-version' -d 'fractional hashing: 3 (the default), 2 or 1; overrides prefs flag config.' -rfka ''
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs flag explain" json' -l 'json' -d 'Print the explanation as one JSON object.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs flag explain" version' -l 'version' -d 'Show the version.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs flag explain" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs flag diff" store' -l 'store' -d 'The store file (default: $PREFS_STORE, else $XDG_DATA_HOME/prefs/prefs.db, else ~/.local/share/prefs/prefs.db).' -rF
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs flag diff" actor' -l 'actor' -d 'Who the change log names for this command\'s writes (default: $PREFS_ACTOR, else USER@HOST).' -rfka ''
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs flag diff"' -l 'override' -d 'Read VALUE for DOMAIN:KEY in this invocation instead of the store (repeatable; never written). Also $PREFS_OVERRIDES, a JSON object {"domain":{"key":value}}.' -rfka ''
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs flag diff" contexts' -l 'contexts' -d 'Evaluation contexts, one JSON object per line (- for standard input).' -rfka ''
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs flag diff" synthetic' -l 'synthetic' -d 'Instead of --contexts: N contexts with generated targeting keys.' -rfka ''
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs flag diff" seed' -l 'seed' -d 'The seed of --synthetic\'s keys (default 0): the same seed, the same keys.' -rfka ''
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs flag diff" examples' -l 'examples' -d 'Example contexts shown per cell (default 3).' -rfka ''
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs flag diff" fractional-version' -l 'fractional-version' -d 'fractional hashing: 3 (the default), 2 or 1; overrides prefs flag config.' -rfka ''
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs flag diff" json' -l 'json' -d 'Print the comparison as one JSON object.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs flag diff" version' -l 'version' -d 'Show the version.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs flag diff" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs flag stats" store' -l 'store' -d 'The store file (default: $PREFS_STORE, else $XDG_DATA_HOME/prefs/prefs.db, else ~/.local/share/prefs/prefs.db).' -rF
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs flag stats" actor' -l 'actor' -d 'Who the change log names for this command\'s writes (default: $PREFS_ACTOR, else USER@HOST).' -rfka ''
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs flag stats"' -l 'override' -d 'Read VALUE for DOMAIN:KEY in this invocation instead of the store (repeatable; never written). Also $PREFS_OVERRIDES, a JSON object {"domain":{"key":value}}.' -rfka ''
complete -c 'prefs' -n '__prefs_should_offer_completions_for_positional "prefs flag stats" -eq 1' -fka '(__prefs_custom_completion ---completion flag stats -- positional@0 (count (__prefs_tokens -pc)) (__prefs_tokens -tC))'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs flag stats" contexts' -l 'contexts' -d 'Evaluation contexts, one JSON object per line (- for standard input).' -rfka ''
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs flag stats" synthetic' -l 'synthetic' -d 'Instead of --contexts: N contexts with generated targeting keys.' -rfka ''
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs flag stats" seed' -l 'seed' -d 'The seed of --synthetic\'s keys (default 0).' -rfka ''
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs flag stats" document' -l 'document' -d 'Use the flags of this flagd file instead of the store.' -rfka ''
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs flag stats" fractional-version' -l 'fractional-version' -d 'fractional hashing: 3 (the default), 2 or 1; overrides prefs flag config.' -rfka ''
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs flag stats" json' -l 'json' -d 'Print the distribution as one JSON object.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs flag stats" version' -l 'version' -d 'Show the version.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs flag stats" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs flag lint" store' -l 'store' -d 'The store file (default: $PREFS_STORE, else $XDG_DATA_HOME/prefs/prefs.db, else ~/.local/share/prefs/prefs.db).' -rF
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs flag lint" actor' -l 'actor' -d 'Who the change log names for this command\'s writes (default: $PREFS_ACTOR, else USER@HOST).' -rfka ''
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs flag lint"' -l 'override' -d 'Read VALUE for DOMAIN:KEY in this invocation instead of the store (repeatable; never written). Also $PREFS_OVERRIDES, a JSON object {"domain":{"key":value}}.' -rfka ''
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs flag lint" format' -l 'format' -d 'text (the default), json or github.' -rfka ''
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs flag lint" version' -l 'version' -d 'Show the version.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs flag lint" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs refresh" store' -l 'store' -d 'The store file (default: $PREFS_STORE, else $XDG_DATA_HOME/prefs/prefs.db, else ~/.local/share/prefs/prefs.db).' -rF
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs refresh" actor' -l 'actor' -d 'Who the change log names for this command\'s writes (default: $PREFS_ACTOR, else USER@HOST).' -rfka ''
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs refresh"' -l 'override' -d 'Read VALUE for DOMAIN:KEY in this invocation instead of the store (repeatable; never written). Also $PREFS_OVERRIDES, a JSON object {"domain":{"key":value}}.' -rfka ''
complete -c 'prefs' -n '__prefs_should_offer_completions_for_positional "prefs refresh" -eq 1' -fka '(__prefs_custom_completion ---completion refresh -- positional@0 (count (__prefs_tokens -pc)) (__prefs_tokens -tC))'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs refresh" from' -l 'from' -d 'An http(s) URL or a file.' -rfka ''
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs refresh" timeout' -l 'timeout' -d 'Give up after this long, fetching, checking and applying included (default 5s).' -rfka ''
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs refresh"' -l 'header' -d 'An HTTP header \'Name: value\', or @FILE for the header lines of FILE (repeatable; visible to local users).' -rfka ''
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs refresh"' -l 'header-file' -d 'A file of \'Name: value\' lines (blank and # lines skipped; repeatable).' -rfka ''
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs refresh" max-age' -l 'max-age' -d 'Do nothing when the copy is younger than this (e.g. 10m).' -rfka ''
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs refresh" status' -l 'status' -d 'Show each domain\'s source, last success, last failure and copy age.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs refresh" json' -l 'json' -d 'With --status: JSON Lines.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs refresh" version' -l 'version' -d 'Show the version.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs refresh" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs remote" version' -l 'version' -d 'Show the version.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs remote" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_positional "prefs remote" -eq 1' -fa 'set' -d 'Sync this store with a PostgreSQL database; queue the synced domains\' content for the first push.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_positional "prefs remote" -eq 1' -fa 'show' -d 'Print the remote URL (exit 1 when none is set).'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_positional "prefs remote" -eq 1' -fa 'unset' -d 'Stop syncing: forget the remote and the pending operations; local data is kept.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs remote set" store' -l 'store' -d 'The store file (default: $PREFS_STORE, else $XDG_DATA_HOME/prefs/prefs.db, else ~/.local/share/prefs/prefs.db).' -rF
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs remote set" actor' -l 'actor' -d 'Who the change log names for this command\'s writes (default: $PREFS_ACTOR, else USER@HOST).' -rfka ''
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs remote set"' -l 'override' -d 'Read VALUE for DOMAIN:KEY in this invocation instead of the store (repeatable; never written). Also $PREFS_OVERRIDES, a JSON object {"domain":{"key":value}}.' -rfka ''
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs remote set" domains' -l 'domains' -d 'The synced domains, separated by commas (default: every persistent domain except user, custom ones included).' -rfka ''
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs remote set" version' -l 'version' -d 'Show the version.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs remote set" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs remote show" store' -l 'store' -d 'The store file (default: $PREFS_STORE, else $XDG_DATA_HOME/prefs/prefs.db, else ~/.local/share/prefs/prefs.db).' -rF
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs remote show" actor' -l 'actor' -d 'Who the change log names for this command\'s writes (default: $PREFS_ACTOR, else USER@HOST).' -rfka ''
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs remote show"' -l 'override' -d 'Read VALUE for DOMAIN:KEY in this invocation instead of the store (repeatable; never written). Also $PREFS_OVERRIDES, a JSON object {"domain":{"key":value}}.' -rfka ''
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs remote show" json' -l 'json' -d 'Print {"url":…,"domains":[…] or null}.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs remote show" version' -l 'version' -d 'Show the version.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs remote show" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs remote unset" store' -l 'store' -d 'The store file (default: $PREFS_STORE, else $XDG_DATA_HOME/prefs/prefs.db, else ~/.local/share/prefs/prefs.db).' -rF
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs remote unset" actor' -l 'actor' -d 'Who the change log names for this command\'s writes (default: $PREFS_ACTOR, else USER@HOST).' -rfka ''
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs remote unset"' -l 'override' -d 'Read VALUE for DOMAIN:KEY in this invocation instead of the store (repeatable; never written). Also $PREFS_OVERRIDES, a JSON object {"domain":{"key":value}}.' -rfka ''
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs remote unset" version' -l 'version' -d 'Show the version.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs remote unset" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs sync" store' -l 'store' -d 'The store file (default: $PREFS_STORE, else $XDG_DATA_HOME/prefs/prefs.db, else ~/.local/share/prefs/prefs.db).' -rF
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs sync" actor' -l 'actor' -d 'Who the change log names for this command\'s writes (default: $PREFS_ACTOR, else USER@HOST).' -rfka ''
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs sync"' -l 'override' -d 'Read VALUE for DOMAIN:KEY in this invocation instead of the store (repeatable; never written). Also $PREFS_OVERRIDES, a JSON object {"domain":{"key":value}}.' -rfka ''
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs sync" status' -l 'status' -d 'Show the remote, pending operations and the last sync instead of syncing.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs sync" json' -l 'json' -d 'Print JSON.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs sync" watch' -l 'watch' -d 'Keep syncing until interrupted: on other stores\' pushes, on local writes, and every SECONDS (failures are reported and retried).' -rfka ''
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs sync" compact' -l 'compact' -d 'Compact the remote\'s log instead of syncing: remove operations older than the horizon.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs sync" horizon' -l 'horizon' -d 'With --compact: the horizon, kept as the remote\'s automatic one (default: the remote\'s, 7d).' -rfka ''
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs sync" timeout' -l 'timeout' -d 'Give up after this long (default 30s).' -rfka ''
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs sync" version' -l 'version' -d 'Show the version.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs sync" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs serve" store' -l 'store' -d 'The store file (default: $PREFS_STORE, else $XDG_DATA_HOME/prefs/prefs.db, else ~/.local/share/prefs/prefs.db).' -rF
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs serve" actor' -l 'actor' -d 'Who the change log names for this command\'s writes (default: $PREFS_ACTOR, else USER@HOST).' -rfka ''
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs serve"' -l 'override' -d 'Read VALUE for DOMAIN:KEY in this invocation instead of the store (repeatable; never written). Also $PREFS_OVERRIDES, a JSON object {"domain":{"key":value}}.' -rfka ''
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs serve" listen' -l 'listen' -d 'HOST:PORT, or unix:PATH for a unix socket, to listen on (default 127.0.0.1:8016; port 0 picks a free one).' -rfka ''
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs serve" token-file' -l 'token-file' -d 'A file holding the bearer token clients must send.' -rfka ''
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs serve" max-body' -l 'max-body' -d 'The largest request body accepted, in bytes (default 65536; larger: 413).' -rfka ''
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs serve" read-timeout' -l 'read-timeout' -d 'Close a connection whose request takes longer than this to arrive, or that is idle this long (default 10s).' -rfka ''
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs serve" head-timeout' -l 'head-timeout' -d 'Close a connection whose request head takes longer than this to arrive (default 5s).' -rfka ''
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs serve" max-connections-per-address' -l 'max-connections-per-address' -d 'The most connections one client host may have open (all loopback addresses are one); more are closed when accepted (default 64).' -rfka ''
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs serve" max-event-streams' -l 'max-event-streams' -d 'The most event streams open at once, OFREP\'s and the inspector\'s; more get 503 (default 32).' -rfka ''
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs serve" max-steps' -l 'max-steps' -d 'The evaluation steps one request may take, all its flags together (default 2000000; over it: an error answer).' -rfka ''
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs serve" no-access-log' -l 'no-access-log' -d 'Do not log requests on stderr.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs serve" version' -l 'version' -d 'Show the version.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs serve" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs doctor" store' -l 'store' -d 'The store file (default: $PREFS_STORE, else $XDG_DATA_HOME/prefs/prefs.db, else ~/.local/share/prefs/prefs.db).' -rF
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs doctor" actor' -l 'actor' -d 'Who the change log names for this command\'s writes (default: $PREFS_ACTOR, else USER@HOST).' -rfka ''
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs doctor"' -l 'override' -d 'Read VALUE for DOMAIN:KEY in this invocation instead of the store (repeatable; never written). Also $PREFS_OVERRIDES, a JSON object {"domain":{"key":value}}.' -rfka ''
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs doctor" json' -l 'json' -d 'Print JSON Lines.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs doctor" fix' -l 'fix' -d 'Remove leftover temporary copies of the store that no process holds.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs doctor" all' -l 'all' -d 'Also list the memory-tier files of other stores that are gone.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs doctor" version' -l 'version' -d 'Show the version.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs doctor" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs compact" store' -l 'store' -d 'The store file (default: $PREFS_STORE, else $XDG_DATA_HOME/prefs/prefs.db, else ~/.local/share/prefs/prefs.db).' -rF
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs compact" actor' -l 'actor' -d 'Who the change log names for this command\'s writes (default: $PREFS_ACTOR, else USER@HOST).' -rfka ''
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs compact"' -l 'override' -d 'Read VALUE for DOMAIN:KEY in this invocation instead of the store (repeatable; never written). Also $PREFS_OVERRIDES, a JSON object {"domain":{"key":value}}.' -rfka ''
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs compact" version' -l 'version' -d 'Show the version.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs compact" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs backup" store' -l 'store' -d 'The store file (default: $PREFS_STORE, else $XDG_DATA_HOME/prefs/prefs.db, else ~/.local/share/prefs/prefs.db).' -rF
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs backup" actor' -l 'actor' -d 'Who the change log names for this command\'s writes (default: $PREFS_ACTOR, else USER@HOST).' -rfka ''
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs backup"' -l 'override' -d 'Read VALUE for DOMAIN:KEY in this invocation instead of the store (repeatable; never written). Also $PREFS_OVERRIDES, a JSON object {"domain":{"key":value}}.' -rfka ''
complete -c 'prefs' -n '__prefs_should_offer_completions_for_positional "prefs backup" -eq 1' -F
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs backup" force' -l 'force' -d 'Overwrite an existing file.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs backup" version' -l 'version' -d 'Show the version.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs backup" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs restore" store' -l 'store' -d 'The store file (default: $PREFS_STORE, else $XDG_DATA_HOME/prefs/prefs.db, else ~/.local/share/prefs/prefs.db).' -rF
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs restore" actor' -l 'actor' -d 'Who the change log names for this command\'s writes (default: $PREFS_ACTOR, else USER@HOST).' -rfka ''
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs restore"' -l 'override' -d 'Read VALUE for DOMAIN:KEY in this invocation instead of the store (repeatable; never written). Also $PREFS_OVERRIDES, a JSON object {"domain":{"key":value}}.' -rfka ''
complete -c 'prefs' -n '__prefs_should_offer_completions_for_positional "prefs restore" -eq 1' -F
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs restore" force' -l 'force' -d 'Replace a store that holds keys.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs restore" with-sources' -l 'with-sources' -d 'Also restore the backup\'s refresh sources (with their headers) and sync remote.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs restore" version' -l 'version' -d 'Show the version.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs restore" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs edit" store' -l 'store' -d 'The store file (default: $PREFS_STORE, else $XDG_DATA_HOME/prefs/prefs.db, else ~/.local/share/prefs/prefs.db).' -rF
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs edit" actor' -l 'actor' -d 'Who the change log names for this command\'s writes (default: $PREFS_ACTOR, else USER@HOST).' -rfka ''
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs edit"' -l 'override' -d 'Read VALUE for DOMAIN:KEY in this invocation instead of the store (repeatable; never written). Also $PREFS_OVERRIDES, a JSON object {"domain":{"key":value}}.' -rfka ''
complete -c 'prefs' -n '__prefs_should_offer_completions_for_positional "prefs edit" -eq 1' -fka '(__prefs_custom_completion ---completion edit -- positional@0 (count (__prefs_tokens -pc)) (__prefs_tokens -tC))'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_positional "prefs edit" -eq 2' -fka '(__prefs_custom_completion ---completion edit -- positional@1 (count (__prefs_tokens -pc)) (__prefs_tokens -tC))'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs edit" version' -l 'version' -d 'Show the version.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs edit" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'prefs' -n '__prefs_should_offer_completions_for_flags_or_options "prefs help" version' -l 'version' -d 'Show the version.'
