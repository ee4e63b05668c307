package dispatch

import (
	"github.com/agentic-workspace/aw/engine/vcs"
	"github.com/agentic-workspace/aw/engine/workspace"
)

// The go-git rows of the vcs tool (workspace_vcs).
// Reads are TierRead; init, add, commit, checkout and branch create/delete
// change the repository (TierWrite, gated as kind vcs); push reaches a
// remote (TierExec). branch lists without create/delete, so its row is
// TierRead and the engine asks for TierWrite when it mutates.
func vcsActions() []*Action {
	return []*Action{
		Bind(VCS, "status", workspace.TierRead, "", "Changed, staged and untracked paths in porcelain v1 letters", vcs.Status),
		Bind(VCS, "diff", workspace.TierRead, "", "Unified diff of the worktree against the index, or of the index against HEAD when staged", vcs.Diff),
		Bind(VCS, "log", workspace.TierRead, "", "Commits from HEAD, newest first, optionally touching a path", vcs.Log),
		Bind(VCS, "show", workspace.TierRead, "", "One commit: its metadata and its diff against the first parent", vcs.Show),
		Bind(VCS, "add", workspace.TierWrite, "vcs", "Stage paths in the index (gated)", vcs.Add).Does(Writes | Idempotent),
		Bind(VCS, "commit", workspace.TierWrite, "vcs", "Commit the index (gated)", vcs.Commit).Does(Writes),
		Bind(VCS, "checkout", workspace.TierWrite, "vcs", "Switch the worktree to a branch or commit (gated, destructive)", vcs.Checkout).Does(Writes | Destroys | Idempotent),
		Bind(VCS, "branch", workspace.TierRead, "vcs", "List branches; create or delete one (gated; delete is destructive)", vcs.Branch).Does(Writes | Destroys),
		Bind(VCS, "push", workspace.TierExec, "vcs", "Push the current branch (gated; force is sent as force-with-lease and is destructive)", vcs.Push).Does(Writes | Destroys | Network),
		Bind(VCS, "init", workspace.TierWrite, "vcs", "Create a git repository at the workspace root (gated)", vcs.Init).Does(Writes | Idempotent),
	}
}
