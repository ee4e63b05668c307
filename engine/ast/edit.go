package ast

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/agentic-workspace/aw/engine/ast/syntax"
	"github.com/agentic-workspace/aw/engine/edit"
	"github.com/agentic-workspace/aw/engine/envelope"
	"github.com/agentic-workspace/aw/engine/eol"
	"github.com/agentic-workspace/aw/engine/workspace"
)

// EditRequest is ast edit.
type EditRequest struct {
	Pattern  string `json:"pattern" doc:"what to match, as for grep"`
	Rewrite  string `json:"rewrite" doc:"what to put in place of each match, with $NAME and $$$NAME replaced by their captures; lines after the first are indented like the matched code"`
	Path     string `json:"path,omitempty" doc:"file or directory to rewrite in, relative to the workspace root; default: the whole workspace"`
	Language string `json:"language,omitempty" doc:"language id (go, ...); default: inferred from each file's extension"`
}

// EditData is the data of ast.edit: the edit id (a planned transaction's
// tx_ id), the counts, and the transaction as `aw edit preview` shows it.
type EditData struct {
	EditID           string `json:"editId"`
	ReplacementCount int    `json:"replacementCount"`
	FilesChanged     int    `json:"filesChanged"`
	*edit.Result
}

// Edit plans a structural rewrite as a transaction; nothing is written.
func Edit(ctx context.Context, ws *workspace.Workspace, req *EditRequest) (envelope.Envelope, error) {
	captured := syntax.PatternNames(req.Pattern)
	tpl, err := syntax.ParseTemplate(req.Rewrite, captured)
	if err != nil {
		return envelope.Envelope{}, envelope.Errorf(envelope.InvalidInput, "%v; the pattern captures %s", err, names(captured)).With("field", "rewrite")
	}
	base, found, _, _, err := scan(ctx, ws, req.Pattern, req.Path, req.Language, true)
	if err != nil {
		return envelope.Envelope{}, err
	}
	var ops []edit.Op
	total, files := 0, 0
	for _, f := range found {
		rs := syntax.Rewrite(f.pattern, f.tree, tpl)
		fileOps := splices(f.rel, f.tree.Src, rs)
		if len(fileOps) == 0 {
			continue
		}
		total += len(rs)
		files++
		ops = append(ops, fileOps...)
	}
	if len(ops) == 0 {
		d := &EditData{Result: &edit.Result{Operations: []edit.OpSummary{}, Files: []edit.FileChange{}, Directories: []edit.DirChange{}}}
		env := envelope.New("", fmt.Sprintf("No match for %q under %s: nothing to rewrite, no transaction planned", req.Pattern, base), d)
		return env, nil
	}
	env, err := edit.Preview(ctx, ws, &edit.PreviewRequest{Operations: ops})
	if err != nil {
		return envelope.Envelope{}, err
	}
	r := env.Data.(*edit.Result)
	env.Data = &EditData{EditID: r.TransactionID, ReplacementCount: total, FilesChanged: files, Result: r}
	env.Summary = fmt.Sprintf("(proposed) %s in %s, nothing written: review the diff, then `aw ast resolve %s accept` (or discard)",
		count(total, "replacement", "replacements"), count(files, "file", "files"), r.TransactionID)
	env.Fact("ast edit %s planned: %s of %q in %s", r.TransactionID, count(total, "replacement", "replacements"), req.Pattern, count(files, "file", "files"))
	return env, nil
}

func names(captured map[string]bool) string {
	var out []string
	for n := range captured {
		out = append(out, "$"+n)
	}
	if len(out) == 0 {
		return "nothing"
	}
	sort.Strings(out)
	return strings.Join(out, ", ")
}

// ResolveRequest is ast resolve.
type ResolveRequest struct {
	EditID string `json:"edit_id" doc:"the editId (tx_…) ast edit returned"`
	// Not "action" as in the seed: over MCP, action names the tool's
	// action (resolve) itself.
	Decision string `json:"decision" doc:"accept commits the change through the permission gate, refused whole if any file changed since it was staged; discard drops it" enum:"accept,discard"`
}

// Resolve accepts (commits) or discards a planned structural edit.
func Resolve(ctx context.Context, ws *workspace.Workspace, req *ResolveRequest) (envelope.Envelope, error) {
	switch req.Decision {
	case "accept":
		return edit.Commit(ctx, ws, &edit.TxRequest{TransactionID: req.EditID})
	case "discard":
		return edit.Discard(ctx, ws, &edit.TxRequest{TransactionID: req.EditID})
	case "":
		return envelope.Envelope{}, envelope.Errorf(envelope.InvalidInput, "decision is required: accept or discard").With("field", "decision")
	}
	return envelope.Envelope{}, envelope.Errorf(envelope.InvalidInput, "decision %q is neither accept nor discard", req.Decision).With("field", "decision")
}

// splices turns a file's replacements into splice operations over whole
// lines, one per run of lines the matches touch, last first so that each
// line number is still the file's own. The first carries the sha256 of the
// content matched: a file changed since is refused as stale, and the commit
// checks it again.
func splices(rel string, src []byte, rs []syntax.Replacement) []edit.Op {
	lines := lineIndex(src)
	lineEnd := func(off int) int { // the offset after the line holding off
		l := lines.line(off)
		if l < len(lines) {
			return lines[l]
		}
		return len(src)
	}
	var ops []edit.Op
	changed := false
	for i := 0; i < len(rs); {
		first := lines.line(rs[i].Start)
		start, end := lines[first-1], lineEnd(max(rs[i].Start, rs[i].End-1))
		var b strings.Builder
		at := start
		j := i
		for ; j < len(rs) && rs[j].Start < end; j++ {
			b.WriteString(string(src[at:rs[j].Start]))
			b.WriteString(rs[j].Text)
			at = rs[j].End
			end = max(end, lineEnd(max(rs[j].Start, rs[j].End-1)))
		}
		b.WriteString(string(src[at:end]))
		last := lines.line(max(start, end-1))
		text := b.String()
		if text != string(src[start:end]) {
			changed = true
		}
		if first == 1 {
			text = strings.TrimPrefix(text, eol.BOM) // the planner keeps the mark
		}
		ops = append(ops, edit.Op{Type: "splice", Path: rel, StartLine: first, DeleteCount: last - first + 1, Content: &text})
		i = j
	}
	if !changed {
		return nil
	}
	slices.Reverse(ops)
	sum := sha256.Sum256(src)
	ops[0].ExpectSHA256 = hex.EncodeToString(sum[:])
	return ops
}
