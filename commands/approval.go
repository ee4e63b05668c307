package commands

import (
	"github.com/spf13/cobra"

	"github.com/agentic-workspace/aw/engine/dispatch"
)

func (a *app) approvalCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "approval", Short: dispatch.Approval.Short}
	token := a.verb(dispatch.Approval, "token", "token", nil, nil)
	token.Args = cobra.NoArgs
	token.Long = `Create a fresh approver token in $XDG_CONFIG_HOME/aw/approver.token
(mode 0600) and print it. A harness or script you own that sets
AW_APPROVER_TOKEN to it may run human verbs (config set, approval accept and
deny). Runs only in your own terminal; the file is ignored if it lies inside
a workspace, is not yours, or is readable by others.`
	cmd.AddCommand(token)
	return cmd
}
