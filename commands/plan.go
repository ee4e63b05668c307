package commands

import (
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/agentic-workspace/aw/engine/dispatch"
	"github.com/agentic-workspace/aw/engine/gate"
)

func (a *app) planCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "plan",
		Short: dispatch.Plan.Short,
		Long: `Plans are proposed by the agent and decided by the user (/accept plan_…,
or ` + "`aw approval accept`" + `). In Plan mode (permissionMode 1) mutating calls run
only while a plan is approved, until ` + "`aw plan complete`" + `; in Manual mode an
approved plan is a shared checklist and every mutating call is still staged.
Not available in Auto mode. Plan actions are never gated.`,
	}
	propose := a.verb(dispatch.Plan, "propose", "propose --input plan.json", nil, nil)
	propose.Args = cobra.NoArgs
	propose.Long = `Propose a plan: {"title", "objective", "steps": [...]} with 1-40 steps,
each a string or {"text", "kind"} (kind: edit, command, vcs, research,
other); optional "files" (at most 100 {"path", "change"}: create, modify,
delete, move), "commands" (at most 40 {"executable", "args"}), "risks" and
"questions" (at most 40 each). Text fields hold at most 2,000 characters.
The plan is written to .agentic/plans/<plan_id>/plan.md and supersedes any
pending or approved plan. Then restate the plan to the user and stop.`
	current := a.verb(dispatch.Plan, "current", "current", nil, nil)
	current.Args = cobra.NoArgs
	id := func(req any, args []string) {
		if len(args) > 0 {
			switch r := req.(type) {
			case *gate.PlanShowRequest:
				r.PlanID = args[0]
			case *gate.PlanCompleteRequest:
				r.PlanID = args[0]
			}
		}
	}
	show := a.verb(dispatch.Plan, "show", "show PLAN_ID", nil, id)
	show.Args = cobra.MaximumNArgs(1)
	complete := a.verb(dispatch.Plan, "complete", "complete [PLAN_ID]", func(f *pflag.FlagSet, req any) {
		f.StringVar(&req.(*gate.PlanCompleteRequest).Summary, "summary", "", "what was done (kept with the plan record)")
	}, id)
	complete.Args = cobra.MaximumNArgs(1)
	complete.Long = `End the approved plan (default: the approved one). In Plan mode mutating
calls are locked again until a new plan is approved. A plan the user has not
accepted cannot be completed (TRANSACTION_STATE): stop and wait for the user.`
	list := a.verb(dispatch.Plan, "list", "list", func(f *pflag.FlagSet, req any) {
		f.IntVar(&req.(*gate.PlanListRequest).Limit, "limit", 0, "most plans to show, 1-100 (default 20)")
	}, nil)
	list.Args = cobra.NoArgs
	cmd.AddCommand(propose, current, show, complete, list)
	return cmd
}
