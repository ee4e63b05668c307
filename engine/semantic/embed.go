package semantic

import (
	"context"

	"github.com/agentic-workspace/aw/engine/workspace"
)

// rerankPool is how many of the best BM25 chunks the embeddings re-rank.
const rerankPool = 30

// EmbedState says whether the embeddings endpoint took part in a ranking.
type EmbedState struct {
	Model  string `json:"model"`
	Status string `json:"status"` // used, skipped, failed
	Reason string `json:"reason,omitempty"`
}

func embeddingsConfigured(ws *workspace.Workspace) *EmbedState { return nil }

func rerank(ctx context.Context, ws *workspace.Workspace, q string, rs []Result, st *EmbedState) []Result {
	return rs
}
