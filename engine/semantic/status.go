package semantic

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/agentic-workspace/aw/engine/envelope"
	"github.com/agentic-workspace/aw/engine/workspace"
)

// IndexRequest is the argument object of inspect.index_status and
// inspect.index_rebuild (they take no arguments).
type IndexRequest struct{}

// IndexData is data of inspect.index_status and inspect.index_rebuild.
type IndexData struct {
	Exists        bool    `json:"exists"`
	Path          string  `json:"path"` // the index directory, root-relative
	Base          string  `json:"base,omitempty"`
	FormatVersion int     `json:"formatVersion"`
	Files         int     `json:"files"`
	Chunks        int     `json:"chunks"`
	Terms         int     `json:"terms"`
	Segments      int     `json:"segments"`
	Bytes         int64   `json:"bytes"`
	UpdatedAt     string  `json:"updatedAt,omitempty"`
	Problem       string  `json:"problem,omitempty"` // why the next query will rebuild it
	Update        *Update `json:"update,omitempty"`  // what the rebuild did
}

// IndexStatus describes the index on disk without changing it.
func IndexStatus(ctx context.Context, ws *workspace.Workspace, req *IndexRequest) (envelope.Envelope, error) {
	d := &IndexData{Path: ws.Store.Rel(ws.Store.Path(indexDir)), FormatVersion: formatVersion}
	m, segs, problem := loadIndex(ws, scopeRel(ws))
	describe(ws, d, m, segs)
	if m == nil && problem != "no index yet" {
		d.Problem = problem
	}
	env := envelope.New("", "", d)
	env.Retention.Importance = envelope.Low
	switch {
	case d.Exists:
		env.Summary = fmt.Sprintf("Index of %s: %s, %s, %s in %s, %s, updated %s; queries update it as files change", displayDir(d.Base),
			plural(d.Files, "file"), plural(d.Chunks, "chunk"), plural(d.Terms, "term"), plural(d.Segments, "segment"), humanBytes(d.Bytes), d.UpdatedAt)
	case d.Problem != "":
		env.Summary = fmt.Sprintf("The index under %s cannot be used (%s); the next `aw inspect semantic-search` or `aw inspect index rebuild` rebuilds it", d.Path, d.Problem)
	default:
		env.Summary = fmt.Sprintf("No index yet under %s; the first `aw inspect semantic-search` builds it (or `aw inspect index rebuild`)", d.Path)
	}
	return env, nil
}

// IndexRebuild builds the index from scratch.
// The index is a cache of what the workspace holds (a rebuild changes no
// answer), so the action is not a write; at --tier read it is refused
// since nothing may be written there.
func IndexRebuild(ctx context.Context, ws *workspace.Workspace, req *IndexRequest) (envelope.Envelope, error) {
	if !persistOK(ws) {
		return envelope.Envelope{}, envelope.Errorf(envelope.ToolDisabled,
			"index rebuild writes .agentic/index/, which --tier read forbids; run it with --tier write, or just search: `aw inspect semantic-search` brings the index up to date in memory at --tier read").With("tier", "write")
	}
	ix, up, err := openIndex(ctx, ws, true)
	if err != nil {
		return envelope.Envelope{}, err
	}
	ix.close()
	d := &IndexData{Path: ws.Store.Rel(ws.Store.Path(indexDir)), FormatVersion: formatVersion, Update: up}
	m, segs, _ := loadIndex(ws, scopeRel(ws))
	describe(ws, d, m, segs)
	env := envelope.New("", "", d)
	env.Retention.Importance = envelope.Low
	env.Summary = fmt.Sprintf("Index of %s rebuilt in %d ms: %s, %s, %s", displayDir(d.Base), up.DurationMs, plural(d.Files, "file"), plural(d.Chunks, "chunk"), humanBytes(d.Bytes))
	if up.Skipped > 0 {
		env.Summary += fmt.Sprintf("; %s skipped (binary, over 1 MiB or unreadable)", plural(up.Skipped, "file"))
	}
	return env, nil
}

func describe(ws *workspace.Workspace, d *IndexData, m *manifest, segs []*segment) {
	if m == nil {
		return
	}
	d.Exists, d.Base, d.Segments = true, displayBase(m.base), len(segs)
	for _, e := range m.files {
		if e.seg != 0 {
			d.Files++
		}
	}
	d.UpdatedAt = time.Unix(0, m.builtAt).UTC().Format(time.RFC3339)
	ix := &index{m: m, segs: segs}
	ix.prepare()
	d.Chunks = ix.nChunks
	for _, s := range segs {
		d.Terms = max(d.Terms, s.nTerms)
		s.close()
	}
	ents, _ := os.ReadDir(ws.Store.Path(indexDir))
	for _, e := range ents {
		if fi, err := e.Info(); err == nil && fi.Mode().IsRegular() {
			d.Bytes += fi.Size()
		}
	}
}

func displayBase(rel string) string {
	if rel == "" {
		return "."
	}
	return rel
}

func humanBytes(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}
