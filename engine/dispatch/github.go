package dispatch

import (
	"github.com/agentic-workspace/aw/engine/github"
	"github.com/agentic-workspace/aw/engine/workspace"
)

// The GitHub REST actions are rows of the vcs tool (workspace_vcs), so
// vcs.enabled governs them. They reach the network: TierExec. issue_create
// and pr_create go through the gate as kind vcs.
func githubActions() []*Action {
	return []*Action{
		Bind(VCS, "gh_auth", workspace.TierExec, "", "Who the GitHub token belongs to (GET /user)", github.Auth).Does(Network),
		Bind(VCS, "issue_list", workspace.TierExec, "", "List a GitHub repository's issues (pull requests left out)", github.ListIssues).Does(Network),
		Bind(VCS, "issue_create", workspace.TierExec, "vcs", "Open a GitHub issue (gated)", github.CreateIssue).Does(Writes | Network),
		Bind(VCS, "pr_list", workspace.TierExec, "", "List a GitHub repository's pull requests", github.ListPRs).Does(Network),
		Bind(VCS, "pr_create", workspace.TierExec, "vcs", "Open a GitHub pull request (gated)", github.CreatePR).Does(Writes | Network),
		Bind(VCS, "pr_diff", workspace.TierExec, "", "A pull request's diff (bounded inline, the whole diff as an artifact)", github.DiffPR).Does(Network),
	}
}
