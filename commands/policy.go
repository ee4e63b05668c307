package commands

import (
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/agentic-workspace/aw/engine/dispatch"
	"github.com/agentic-workspace/aw/engine/policy"
)

func (a *app) policyCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "policy",
		Short: dispatch.Policy.Short,
		Long: `Ask the command policy and the jail a question without running or changing
anything. The answer is data: a refused command is still ok:true (exit 0)
with data.allowed false, data.reason one of metacharacter, unbalanced-quotes,
denied-executable, not-allowed, denied-pattern, nested-command,
unsupported-syntax or path-escape, and data.message saying how to repair it.
aw command run and start refuse the same commands with COMMAND_DENIED.

  aw policy check-command -- go test ./...
  aw policy check-command --line 'cd sub && go build ./... > build.log'
  aw policy check-path .git/config --write`,
	}
	check := a.verb(dispatch.Policy, "check_command", "check-command [--cwd DIR] (--line 'LINE' | -- ARGV...)", func(f *pflag.FlagSet, req any) {
		r := req.(*policy.CheckCommandRequest)
		f.StringVar(&r.Line, "line", "", "a command line (tokenized in interpreter none, parsed as sh in interpreter sh)")
		f.StringVar(&r.Cwd, "cwd", "", "directory the command would start in, relative to the workspace root")
	}, func(req any, args []string) {
		if len(args) > 0 {
			req.(*policy.CheckCommandRequest).Argv = args
		}
	})
	// Flags after the executable belong to it: `aw policy check-command go test -v`.
	check.Flags().SetInterspersed(false)
	path := a.verb(dispatch.Policy, "check_path", "check-path PATH [--write]", func(f *pflag.FlagSet, req any) {
		f.BoolVar(&req.(*policy.CheckPathRequest).Write, "write", false, "ask about writing (protected paths are readable but never writable)")
	}, func(req any, args []string) {
		if len(args) > 0 {
			req.(*policy.CheckPathRequest).Path = args[0]
		}
	})
	path.Args = cobra.MaximumNArgs(1)
	cmd.AddCommand(check, path)
	return cmd
}
