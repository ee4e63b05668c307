package dispatch

import (
	"github.com/agentic-workspace/aw/engine/research"
	"github.com/agentic-workspace/aw/engine/workspace"
)

// Research projects are store state (start, list, show, note, archive:
// never gated, like task boards; list and show are the read tier, start,
// note and archive the write tier). search, fetch and deep reach
// the network: TierExec, gated as kind web. research.enabled governs all.
func researchActions() []*Action {
	return []*Action{
		Bind(Research, "start", workspace.TierWrite, "", "Start a research project (.agentic/research/<research_id>/)", research.Start).Does(Writes),
		Bind(Research, "search", workspace.TierExec, "web", "Search the web: duckduckgo, wikipedia, searxng or auto with fall-back (gated as web)", research.Search).Does(Writes | Network),
		Bind(Research, "fetch", workspace.TierExec, "web", "Fetch a URL: title, main text and links; with research_id a durable source (gated as web)", research.Fetch).Does(Writes | Network),
		Bind(Research, "deep", workspace.TierExec, "web", "Run a research-mode sub-agent on an objective: its searches, fetches and notes go into the project (needs agents.enabled; with run_id, wait for one)", research.Deep).Does(Writes | Network).Awaits(),
		Bind(Research, "list", workspace.TierRead, "", "List research projects, newest first", research.List),
		Bind(Research, "show", workspace.TierRead, "", "Show a project: sources, queries, notes", research.Show),
		Bind(Research, "note", workspace.TierWrite, "", "Add a finding, claim, question, warning or method, optionally tied to a source", research.AddNote).Does(Writes),
		Bind(Research, "archive", workspace.TierWrite, "", "Archive a project (read-only, hidden from list)", research.Archive).Does(Writes | Idempotent),
	}
}
