package inspect

import (
	"context"

	"github.com/agentic-workspace/aw/engine/envelope"
	"github.com/agentic-workspace/aw/engine/workspace"
)

// SemanticSearchRequest is the argument object of inspect.semantic_search.
type SemanticSearchRequest struct {
	Query string `json:"query" doc:"what to look for, in words (not available yet: the call says so; use search)"`
	Limit int    `json:"limit,omitempty" doc:"most chunks returned (not available yet)"`
}

// SemanticSearch is registered so the tool's shape is complete, but the BM25
// index it needs lands in its own issue. Until then it says so plainly
// instead of pretending with a weaker search.
func SemanticSearch(ctx context.Context, ws *workspace.Workspace, req *SemanticSearchRequest) (envelope.Envelope, error) {
	return envelope.Envelope{}, envelope.Errorf(envelope.ToolDisabled,
		"semantic_search is not available yet: its BM25 index over code-aware chunks lands in its own issue; meanwhile use `aw inspect search PATTERN` (regex or --fixed, with --ignore-case and --glob) or `aw inspect find GLOB`").With("reason", "not-implemented")
}
