package semantic

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/agentic-workspace/aw/engine/workspace"
)

// benchRoot is a tree to measure on: AW_SEMANTIC_BENCH_ROOT (a copy of
// GOROOT/src, say), skipped without it.
func benchRoot(tb testing.TB) *workspace.Workspace {
	root := os.Getenv("AW_SEMANTIC_BENCH_ROOT")
	if root == "" {
		tb.Skip("set AW_SEMANTIC_BENCH_ROOT to a writable tree (a copy of GOROOT/src)")
	}
	ws, err := workspace.Open(workspace.Options{Root: root, Tier: workspace.TierExec})
	if err != nil {
		tb.Fatal(err)
	}
	return ws
}

// BenchmarkQuery: refresh (a walk that finds nothing changed) and one
// ranking, in process.
func BenchmarkQuery(b *testing.B) {
	ws := benchRoot(b)
	ctx := context.Background()
	terms := queryTerms("where are RFC 3339 timestamps parsed")
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		ix, _, err := openIndex(ctx, ws, false)
		if err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		hits, err := ix.rank(terms, func(string, uint8) bool { return true })
		if err != nil {
			b.Fatal(err)
		}
		t2 := time.Now()
		ix.results(ws, ix.diversify(hits, 10))
		t3 := time.Now()
		ix.close()
		if i == 0 {
			b.Logf("open+refresh %v, rank %v, results %v", t1.Sub(t0), t2.Sub(t1), t3.Sub(t2))
		}
	}
}

// BenchmarkBuild: the index of the whole tree from scratch, kept in memory.
func BenchmarkBuild(b *testing.B) {
	ws := benchRoot(b)
	ctx := context.Background()
	for i := 0; i < b.N; i++ {
		ix, err := build(ctx, ws, ".", &Update{}, false, "")
		if err != nil {
			b.Fatal(err)
		}
		ix.close()
	}
}
