package commands

import (
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agentic-workspace/aw/engine/dispatch"
)

// idArgs are the verbs whose first argument is an id, by command path, and
// the kind of id: shell completion offers the ids that exist (the engine
// also takes a unique prefix of one, see dispatch.IDs).
var idArgs = map[string]string{
	"approval accept": "approval", "approval deny": "approval", "approval show": "approval",
	"edit commit": "tx", "edit rollback": "tx", "edit show": "tx",
	"command status": "job", "command cancel": "job", "command output": "job", "command wait": "job",
	"plan show": "plan", "plan complete": "plan",
	"tasks show": "board", "tasks add": "board", "tasks update": "board", "tasks remove": "board",
	"tasks note": "board", "tasks checkpoint": "board", "tasks next": "board", "tasks archive": "board", "tasks reopen": "board",
	"research show": "research", "research archive": "research", "research note": "research",
	"browser read": "session", "browser close": "session", "browser control": "session",
}

// completeIDs gives the id verbs their completion of ids, and the global
// enum flags theirs.
func (a *app) completeIDs(root *cobra.Command) {
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		path := strings.TrimPrefix(c.CommandPath(), root.Name()+" ")
		if kind, ok := idArgs[path]; ok {
			c.ValidArgsFunction = func(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
				if len(args) > 0 {
					return nil, cobra.ShellCompDirectiveNoFileComp
				}
				ws, err := a.openWorkspace()
				if err != nil {
					return nil, cobra.ShellCompDirectiveNoFileComp
				}
				var out []string
				for _, id := range dispatch.IDs(ws, kind) {
					if strings.HasPrefix(id, toComplete) {
						out = append(out, id)
					}
				}
				return out, cobra.ShellCompDirectiveNoFileComp
			}
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	for flag, values := range map[string][]string{"tier": {"read", "write", "exec"}, "output": {"json", "table"}, "color": {"auto", "always", "never"}} {
		root.RegisterFlagCompletionFunc(flag, cobra.FixedCompletions(values, cobra.ShellCompDirectiveNoFileComp))
	}
}

// bashFallback defines, when the bash-completion package is not loaded,
// the two helpers cobra's bash script needs from it, so `source <(aw
// completion bash)` works in a plain bash (macOS's, a minimal container).
// Words are split at blanks up to the cursor; quoting inside a word is not
// understood, which only matters for file names with spaces.
const bashFallback = `# aw: stand-ins for bash-completion's helpers, used only when it is absent.
if ! declare -F _get_comp_words_by_ref >/dev/null 2>&1; then
_get_comp_words_by_ref() {
    local line=${COMP_LINE:0:COMP_POINT}
    read -ra words <<< "$line"
    [[ -z $line || $line == *[[:blank:]] ]] && words+=("")
    cword=$(( ${#words[@]} - 1 ))
    cur=${words[cword]}
    prev=${words[cword-1]:-}
}
fi
if ! declare -F _filedir >/dev/null 2>&1; then
_filedir() {
    local IFS=$'\n'
    if [[ ${1-} == -d ]]; then
        COMPREPLY+=( $(compgen -d -- "$cur") )
    else
        COMPREPLY+=( $(compgen -f -- "$cur") )
    fi
}
fi

`

// WriteBashCompletion writes aw's bash completion script: cobra's, after
// the stand-ins above.
func WriteBashCompletion(root *cobra.Command, w io.Writer) error {
	if _, err := io.WriteString(w, bashFallback); err != nil {
		return err
	}
	return root.GenBashCompletionV2(w, true)
}

// ownBashCompletion makes `aw completion bash` print WriteBashCompletion's
// script instead of cobra's bare one.
func ownBashCompletion(root *cobra.Command) {
	if root.CompletionOptions.DisableDefaultCmd {
		return
	}
	root.InitDefaultCompletionCmd()
	for _, c := range root.Commands() {
		if c.Name() != "completion" {
			continue
		}
		for _, shell := range c.Commands() {
			if shell.Name() == "bash" {
				shell.RunE = func(cmd *cobra.Command, args []string) error {
					return WriteBashCompletion(root, cmd.OutOrStdout())
				}
			}
		}
	}
}
