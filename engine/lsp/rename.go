package lsp

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/agentic-workspace/aw/engine/edit"
	"github.com/agentic-workspace/aw/engine/envelope"
	"github.com/agentic-workspace/aw/engine/workspace"
)

// RenameRequest is lsp rename.
type RenameRequest struct {
	File    string `json:"file" doc:"the file the symbol is in, relative to the workspace root"`
	Line    int    `json:"line" doc:"the 1-based line the symbol is on"`
	Symbol  string `json:"symbol" doc:"the symbol's text on that line; never a column"`
	NewName string `json:"new_name" doc:"what to call it"`
}

// Rename is lsp rename: the server's workspace edit as a planned aw
// transaction (a preview with its diff; `aw edit commit` writes it through
// the gate). Each file's edits become splices of the lines they touch, the
// first carrying the file's sha256 as read now, so a file changed after
// this call fails the commit stale. A rename that would create, move or
// delete files is refused.
func Rename(ctx context.Context, ws *workspace.Workspace, r *RenameRequest) (envelope.Envelope, error) {
	if strings.TrimSpace(r.NewName) == "" {
		return envelope.Envelope{}, envelope.Errorf(envelope.InvalidInput, "new_name is required: what to call the symbol")
	}
	pos, err := locate(ws, &PositionRequest{File: r.File, Line: r.Line, Symbol: r.Symbol})
	if err != nil {
		return envelope.Envelope{}, err
	}
	raw, err := query(ctx, ws, pos.cand, []string{pos.path.Abs}, "textDocument/rename", RenameParams{TextDocumentPositionParams: pos.params(), NewName: r.NewName})
	if err != nil {
		return envelope.Envelope{}, err
	}
	edits, err := fileEdits(raw)
	if err != nil {
		return envelope.Envelope{}, err
	}
	if len(edits) == 0 {
		return envelope.Envelope{}, envelope.Errorf(envelope.NotFound, "%s offers no rename of %s at line %d of %s", pos.cand.Name, r.Symbol, r.Line, pos.path.Rel)
	}
	uris := make([]string, 0, len(edits))
	for u := range edits {
		uris = append(uris, u)
	}
	sort.Strings(uris)
	var ops []edit.Op
	for _, u := range uris {
		fops, err := spliceOps(ws, uriPath(u), edits[u])
		if err != nil {
			return envelope.Envelope{}, err
		}
		ops = append(ops, fops...)
	}
	env, err := edit.Preview(ctx, ws, &edit.PreviewRequest{Operations: ops})
	if err != nil {
		return envelope.Envelope{}, err
	}
	env.Summary = fmt.Sprintf("rename %s → %s planned in %d files: %s", r.Symbol, r.NewName, len(uris), env.Summary)
	env.Fact("commit with `aw edit commit` and the transaction id above")
	return env, nil
}

// fileEdits reads a WorkspaceEdit's text edits by document.
func fileEdits(raw json.RawMessage) (map[string][]TextEdit, error) {
	var we WorkspaceEdit
	if err := json.Unmarshal(raw, &we); err != nil {
		return nil, envelope.Errorf(envelope.Internal, "the server's rename answer is not a workspace edit: %v", err)
	}
	out := map[string][]TextEdit{}
	for u, e := range we.Changes {
		out[u] = append(out[u], e...)
	}
	for _, dc := range we.DocumentChanges {
		var tde TextDocumentEdit
		json.Unmarshal(dc, &tde)
		if tde.Kind != "" {
			return nil, envelope.Errorf(envelope.InvalidInput, "this rename would %s a file, which aw lsp rename does not do: rename the symbol only, or move the file with aw edit", tde.Kind)
		}
		out[tde.TextDocument.URI] = append(out[tde.TextDocument.URI], tde.Edits...)
	}
	return out, nil
}

// spliceOps turns one file's edits into splices, last lines first so each
// applies to lines the previous ones did not move.
func spliceOps(ws *workspace.Workspace, abs string, edits []TextEdit) ([]edit.Op, error) {
	p, err := ws.Jail.Resolve(abs, workspace.Write)
	if err != nil {
		return nil, err
	}
	content, err := os.ReadFile(p.Abs)
	if err != nil {
		return nil, envelope.Errorf(envelope.NotFound, "cannot read %s for the rename: %v", p.Rel, err)
	}
	sum := sha256.Sum256(content)
	lines := bytes.SplitAfter(content, []byte("\n"))
	if len(lines) > 0 && len(lines[len(lines)-1]) == 0 {
		lines = lines[:len(lines)-1]
	}
	offset := func(pos Position) (int, error) {
		if pos.Line > len(lines) || pos.Line < 0 {
			return 0, envelope.Errorf(envelope.Internal, "the server's rename names line %d of %s, which has %d", pos.Line+1, p.Rel, len(lines))
		}
		start := 0
		for i := 0; i < pos.Line; i++ {
			start += len(lines[i])
		}
		if pos.Line == len(lines) {
			return start, nil
		}
		return start + byteColumn(string(lines[pos.Line]), pos.Character), nil
	}
	sort.Slice(edits, func(i, j int) bool {
		a, b := edits[i].Range.Start, edits[j].Range.Start
		return a.Line < b.Line || a.Line == b.Line && a.Character < b.Character
	})
	// Groups of edits whose lines touch, each one splice.
	type group struct {
		first, last int
		edits       []TextEdit
	}
	var groups []*group
	for _, e := range edits {
		if n := len(groups); n > 0 && e.Range.Start.Line <= groups[n-1].last {
			g := groups[n-1]
			g.edits = append(g.edits, e)
			g.last = max(g.last, e.Range.End.Line)
			continue
		}
		groups = append(groups, &group{first: e.Range.Start.Line, last: e.Range.End.Line, edits: []TextEdit{e}})
	}
	var ops []edit.Op
	for gi := len(groups) - 1; gi >= 0; gi-- {
		g := groups[gi]
		from, _ := offset(Position{Line: g.first})
		last := min(g.last, len(lines)-1)
		to, _ := offset(Position{Line: last})
		to += len(lines[last])
		var b strings.Builder
		at := from
		for _, e := range g.edits {
			s, err := offset(e.Range.Start)
			if err != nil {
				return nil, err
			}
			t, err := offset(e.Range.End)
			if err != nil {
				return nil, err
			}
			if s < at || t < s {
				return nil, envelope.Errorf(envelope.Internal, "the server's rename edits of %s overlap", p.Rel)
			}
			b.Write(content[at:s])
			b.WriteString(e.NewText)
			at = t
		}
		b.Write(content[at:to])
		text := b.String()
		ops = append(ops, edit.Op{Type: "splice", Path: p.Rel, StartLine: g.first + 1, DeleteCount: last - g.first + 1, Content: &text})
	}
	ops[0].ExpectSHA256 = hex.EncodeToString(sum[:])
	return ops, nil
}
