package commands

import (
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
