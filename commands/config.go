package commands

import (
	"github.com/spf13/cobra"

	"github.com/agentic-workspace/aw/engine/config"
	"github.com/agentic-workspace/aw/engine/dispatch"
)

func (a *app) configCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "config",
		Short: dispatch.Config.Short,
		Long: `Settings come from .agentic/config.json (the workspace) over
$XDG_CONFIG_HOME/aw/config.json (the user) over built-in defaults. Keys are
named with dots on the command line (commands.allow). set is a human verb:
it runs only in your own terminal or with AW_APPROVER_TOKEN.`,
	}
	list := a.verb(dispatch.Config, "list", "list", nil, nil)
	list.Args = cobra.NoArgs
	get := a.verb(dispatch.Config, "get", "get KEY", nil, func(req any, args []string) {
		if len(args) > 0 {
			req.(*config.GetRequest).Key = args[0]
		}
	})
	get.Args = cobra.MaximumNArgs(1)
	set := a.verb(dispatch.Config, "set", "set KEY VALUE", nil, func(req any, args []string) {
		r := req.(*config.SetRequest)
		if len(args) > 0 {
			r.Key = args[0]
		}
		if len(args) > 1 {
			r.Value = args[1]
		}
	})
	set.Args = cobra.MaximumNArgs(2)
	cmd.AddCommand(list, get, set)
	return cmd
}

func (a *app) initCmd() *cobra.Command {
	c := a.verb(dispatch.Config, "init", "init", nil, nil)
	c.Long = `Create .agentic/ with a commented default config listing every setting,
and add .agentic/ to .git/info/exclude in a git repository. aw init proposes
commands.allow from the project's files (go.mod: go; package.json: node, npm,
npx; Makefile: make; ...); it is written as a setting only when a human runs
init, else left as a comment with the command that applies it.`
	c.Args = cobra.NoArgs
	return c
}
