package dispatch

import (
	"github.com/agentic-workspace/aw/engine/edit"
	"github.com/agentic-workspace/aw/engine/workspace"
)

// Preview, show and list change nothing in the workspace: the read tier
// may call them. apply, commit and rollback go through the gate.
func editActions() []*Action {
	return []*Action{
		Bind(Edit, "preview", workspace.TierRead, "", "Plan a transaction and show its diff; nothing on disk changes", edit.Preview).Does(Writes),
		Bind(Edit, "apply", workspace.TierWrite, "transaction", "Preview and commit in one call (gated as the commit)", edit.Apply).Does(Writes | Destroys).Then(foldEdit),
		Bind(Edit, "commit", workspace.TierWrite, "transaction", "Commit a planned transaction, all or nothing", edit.Commit).Does(Writes | Destroys | Idempotent).Then(foldEdit),
		Bind(Edit, "rollback", workspace.TierWrite, "transaction", "Restore what a committed transaction changed", edit.Rollback).Does(Writes | Destroys | Idempotent),
		Bind(Edit, "show", workspace.TierRead, "", "Show one transaction", edit.Show),
		Bind(Edit, "list", workspace.TierRead, "", "List transactions, newest first", edit.List),
	}
}
