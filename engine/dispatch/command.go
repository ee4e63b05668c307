package dispatch

import (
	"github.com/agentic-workspace/aw/engine/command"
	"github.com/agentic-workspace/aw/engine/undo"
	"github.com/agentic-workspace/aw/engine/workspace"
)

// undo plans an edit transaction (committed through the gate like any
// other), so like edit preview it needs only the read tier; diff reads.
// run, start and test spawn processes: the exec tier, gated as commands.
// status, output, wait, cancel and list are never gated; cancel (one job or
// all) only stops what a start, run or test began, so it needs the exec
// tier too.
func commandActions() []*Action {
	return []*Action{
		Bind(Command, "run", workspace.TierExec, "command", "Run a command in the foreground under the command policy", command.Run).Does(Writes | Destroys | Network).Then(foldCommand),
		Bind(Command, "start", workspace.TierExec, "command", "Start a background job that outlives this call", command.Start).Does(Writes | Destroys | Network),
		Bind(Command, "test", workspace.TierExec, "command", "Run the workspace's tests (commands.testCommand) like run, and return passed, failed and skipped counts and the failing tests", command.Test).Does(Writes | Destroys | Network),
		Bind(Command, "status", workspace.TierRead, "", "Show a job's status and the tail of its logs", command.Status),
		Bind(Command, "output", workspace.TierRead, "", "Read what a job wrote to stdout and stderr since a cursor, waiting up to wait_ms for more", command.Output),
		Bind(Command, "wait", workspace.TierRead, "", "Block until a job ends (or the timeout passes) and return its status", command.Wait),
		Bind(Command, "cancel", workspace.TierExec, "", "Stop a job's whole process tree, or (all) every running job of the workspace", command.Cancel).Does(Writes | Destroys | Idempotent),
		Bind(Command, "list", workspace.TierRead, "", "List jobs, newest first", command.List),
		Bind(Command, "undo", workspace.TierRead, "", "Plan a transaction that puts back what a finished job changed in the workspace (commit it with edit commit)", undo.Undo).Does(Writes),
		Bind(Command, "diff", workspace.TierRead, "", "Show what a finished job changed in the workspace as a unified diff", undo.Diff),
	}
}
