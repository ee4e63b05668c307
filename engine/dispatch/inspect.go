package dispatch

import (
	"github.com/agentic-workspace/aw/engine/inspect"
	"github.com/agentic-workspace/aw/engine/semantic"
	"github.com/agentic-workspace/aw/engine/workspace"
)

// inspectActions are workspace_inspect's rows: all read-only, never gated.
func inspectActions() []*Action {
	r := workspace.TierRead
	return []*Action{
		Bind(Inspect, "capabilities", r, "", "Permission mode, plans, approvals, notes, tools and the .agentic/ map", inspect.Capabilities),
		Bind(Inspect, "overview", r, "", "The capabilities summary plus the workspace tree", inspect.Overview),
		Bind(Inspect, "list", r, "", "List a directory breadth-first (bounded by list.maxDepth and list.maxEntries)", inspect.List),
		Bind(Inspect, "read", r, "", "Read a line-numbered window of a text file with the whole file's sha256", inspect.Read),
		Bind(Inspect, "search", r, "", "Search file contents with an RE2 regex or a literal (honours .gitignore)", inspect.Search),
		Bind(Inspect, "find", r, "", "Find paths matching a ** glob (honours .gitignore)", inspect.Find),
		Bind(Inspect, "stat", r, "", "Type, size, mode, mtime, and for files sha256 and line count", inspect.Stat),
		Bind(Inspect, "changes", r, "", "Recovery listing: transactions, jobs, runs, boards, research, approvals, plans", inspect.Changes),
		Bind(Inspect, "semantic_search", r, "", "Code chunks ranked by what they do for a question in words (BM25 over declarations; honours .gitignore)", semantic.Search),
		Bind(Inspect, "index_status", r, "", "The semantic-search index: files, chunks, size, when updated, or why it will be rebuilt", semantic.IndexStatus),
		Bind(Inspect, "index_rebuild", r, "", "Rebuild the semantic-search index from scratch", semantic.IndexRebuild),
	}
}
