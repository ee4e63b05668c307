// Package ast owns structural search and rewrite: grep finds code by shape,
// edit turns a rewrite into a planned transaction of engine/edit (its tx_ id
// is the edit id), and resolve accepts it (exactly a commit, through the
// gate, refused whole when any file changed since it was staged) or
// discards it. The matching itself lives in engine/ast/syntax.
//
// Decision: these are the actions of a tool of their own, workspace_ast,
// rather than actions of workspace_inspect and workspace_edit. The seed
// describes them as one family (grep, edit, resolve) with their own
// arguments, and a model looking for "find code by shape" finds it by the
// tool's name; the tier still decides visibility action by action (grep is
// read, edit and resolve are write), and resolve accept goes through the
// same gate as `aw edit commit`.
package ast

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/agentic-workspace/aw/engine/ast/syntax"
	"github.com/agentic-workspace/aw/engine/envelope"
	"github.com/agentic-workspace/aw/engine/inspect"
	"github.com/agentic-workspace/aw/engine/workspace"
)

// GrepRequest is ast grep.
type GrepRequest struct {
	Pattern    string `json:"pattern" doc:"a code fragment with metavariables: $NAME matches one node, $$$NAME a run of siblings (possibly empty), $_ any node without binding; a name used twice must capture the same text"`
	Path       string `json:"path,omitempty" doc:"file or directory to search, relative to the workspace root; default: the whole workspace"`
	Language   string `json:"language,omitempty" doc:"language id (go, ...); default: inferred from each file's extension, the pattern parsed once per language found"`
	MaxResults int    `json:"max_results,omitempty" doc:"most matches returned, 1 to 10000; default 50. Inline output is bounded by maxToolResultChars; the rest goes to an artifact"`
}

// Match is one structural match.
type Match struct {
	Path      string            `json:"path"`
	Language  string            `json:"language"`
	StartLine int               `json:"startLine"`
	EndLine   int               `json:"endLine"`
	Text      string            `json:"text"` // clipped to 500 bytes
	Captures  map[string]string `json:"captures"`
}

// GrepData is the data of ast.grep.
type GrepData struct {
	Pattern      string   `json:"pattern"`
	Path         string   `json:"path"`
	Languages    []string `json:"languages"` // languages the pattern was searched in
	Matches      []Match  `json:"matches"`
	Total        int      `json:"total"`
	Shown        int      `json:"shown"`
	Truncated    bool     `json:"truncated"`
	FilesMatched int      `json:"filesMatched"`
	FilesSkipped int      `json:"filesSkipped,omitempty"` // binary, too large or unreadable
}

const (
	defaultMaxResults = 50
	maxMaxResults     = 10000
	maxText           = 500
)

// patterns compiles a pattern lazily, once per language met.
type patterns struct {
	src   string
	fixed *syntax.Language // --lang or a file PATH: only this language
	mu    sync.Mutex
	byID  map[string]*compiled
}

type compiled struct {
	once sync.Once
	p    *syntax.Pattern
	err  error
}

func (ps *patterns) get(l *syntax.Language) (*syntax.Pattern, error) {
	ps.mu.Lock()
	c, ok := ps.byID[l.ID]
	if !ok {
		c = &compiled{}
		ps.byID[l.ID] = c
	}
	ps.mu.Unlock()
	c.once.Do(func() { c.p, c.err = syntax.Compile(l, ps.src) })
	return c.p, c.err
}

// languageOf resolves --lang, or for a PATH naming a file its extension.
func languageOf(id, path string) (*syntax.Language, error) {
	if id == "" {
		if l := syntax.ByPath(path); l != nil {
			return l, nil
		}
		return nil, nil
	}
	if l := syntax.ByID(id); l != nil {
		return l, nil
	}
	known := strings.Join(syntax.IDs(), ", ")
	if syntax.Planned[strings.ToLower(id)] {
		return nil, envelope.Errorf(envelope.InvalidInput, "language %q is not supported yet: the supported languages are %s", id, known).With("field", "language")
	}
	return nil, envelope.Errorf(envelope.InvalidInput, "unknown language %q: the supported languages are %s", id, known).With("field", "language")
}

// fileMatches is what one file yielded.
type fileMatches struct {
	rel     string
	lang    string
	tree    *syntax.Tree
	pattern *syntax.Pattern
	matches []syntax.Match // edit
	hits    []Match        // grep
}

// hits are a file's matches as grep reports them.
func hits(rel, lang string, t *syntax.Tree, ms []syntax.Match) []Match {
	lines := lineIndex(t.Src)
	out := make([]Match, 0, len(ms))
	for _, m := range ms {
		out = append(out, Match{
			Path: rel, Language: lang,
			StartLine: lines.line(m.Node.Start), EndLine: lines.line(max(m.Node.Start, m.Node.End-1)),
			Text: envelope.Clip(t.Text(m.Node), maxText), Captures: clipped(m.Captures),
		})
	}
	return out
}

// scan walks path and matches the pattern in every file of a language it
// parses in (outermost: no match inside another, as a rewrite needs).
func scan(ctx context.Context, ws *workspace.Workspace, pattern, path, lang string, outermost bool) (string, []*fileMatches, []string, int, error) {
	if strings.TrimSpace(pattern) == "" {
		return "", nil, nil, 0, envelope.Errorf(envelope.InvalidInput, "pattern is required: a code fragment such as 'fmt.Println($$$ARGS)'").With("field", "pattern")
	}
	fixed, err := languageOf(lang, path)
	if err != nil {
		return "", nil, nil, 0, err
	}
	ps := &patterns{src: pattern, fixed: fixed, byID: map[string]*compiled{}}
	if fixed != nil {
		// One language: an unparseable pattern is refused before any walk.
		if _, err := ps.get(fixed); err != nil {
			return "", nil, nil, 0, patternError(err)
		}
	}
	var mu sync.Mutex
	var found []*fileMatches
	fw := inspect.FileWalk{
		Want: func(rel string) bool {
			l := syntax.ByPath(rel)
			return l != nil && (fixed == nil || l == fixed)
		},
		Visit: func(rel string, src []byte) {
			l := fixed
			if l == nil {
				l = syntax.ByPath(rel)
			}
			p, err := ps.get(l)
			if err != nil || !containsAll(src, p.Literals) {
				return
			}
			t, _, err := l.Parse(src)
			if err != nil || t == nil {
				return
			}
			ms := p.Find(t, outermost)
			if len(ms) == 0 {
				return
			}
			fm := &fileMatches{rel: rel, lang: l.ID, pattern: p}
			if outermost {
				// A rewrite needs the tree and the source (a copy: the
				// walk reuses its buffer).
				fm.matches, fm.tree = ms, &syntax.Tree{Root: t.Root, Src: bytes.Clone(src)}
			} else {
				// A search keeps only what it reports, so memory holds
				// the matches, not every matching file's tree.
				fm.hits = hits(rel, l.ID, t, ms)
			}
			mu.Lock()
			found = append(found, fm)
			mu.Unlock()
		},
	}
	base, skipped, err := fw.Run(ctx, ws, path)
	if err != nil {
		return "", nil, nil, 0, err
	}
	var langs []string
	var failures []error
	for id, c := range ps.byID {
		if c.err == nil {
			langs = append(langs, id)
		} else {
			failures = append(failures, c.err)
		}
	}
	sort.Strings(langs)
	if len(langs) == 0 && len(failures) > 0 {
		return "", nil, nil, 0, patternError(errors.Join(failures...))
	}
	sort.Slice(found, func(i, j int) bool { return found[i].rel < found[j].rel })
	return base, found, langs, skipped, nil
}

// containsAll is the literal prefilter: a file lacking the pattern's
// longest token cannot match, and is never parsed.
func containsAll(src []byte, lits []string) bool {
	for i, l := range lits {
		if i == 2 {
			break
		}
		if !bytes.Contains(src, []byte(l)) {
			return false
		}
	}
	return true
}

func patternError(err error) error {
	var u *syntax.UnparseableError
	if errors.As(err, &u) {
		msg := err.Error()
		return envelope.Errorf(envelope.InvalidInput, "%s; it is never searched for: write a complete statement, expression, member or declaration, with $NAME where any node may stand", strings.ReplaceAll(msg, "\n", "; ")).With("field", "pattern").With("language", u.Lang).With("scaffolds", strings.Join(u.Tried, ","))
	}
	return envelope.Errorf(envelope.InvalidInput, "%v", err).With("field", "pattern")
}

// Grep finds code by shape.
func Grep(ctx context.Context, ws *workspace.Workspace, req *GrepRequest) (envelope.Envelope, error) {
	limit := req.MaxResults
	switch {
	case limit < 0:
		return envelope.Envelope{}, envelope.Errorf(envelope.InvalidInput, "max_results must not be negative: use 1 to %d (default %d)", maxMaxResults, defaultMaxResults).With("field", "max_results")
	case limit == 0:
		limit = defaultMaxResults
	case limit > maxMaxResults:
		limit = maxMaxResults
	}
	base, found, langs, skipped, err := scan(ctx, ws, req.Pattern, req.Path, req.Language, false)
	if err != nil {
		return envelope.Envelope{}, err
	}
	d := &GrepData{Pattern: req.Pattern, Path: base, Languages: langs, FilesSkipped: skipped, Matches: []Match{}}
	if d.Languages == nil {
		d.Languages = []string{}
	}
	for _, f := range found {
		if len(d.Matches)+len(f.hits) > limit {
			d.Truncated = true
		}
		if n := min(len(f.hits), limit-len(d.Matches)); n > 0 {
			d.FilesMatched++
			d.Matches = append(d.Matches, f.hits[:n]...)
		}
	}
	d.Total = len(d.Matches)
	env := envelope.New("", "", d)
	env.Retention.Importance = envelope.Low
	env.Omit("data.matches")
	budget := ws.Settings.MaxToolResultChars - 1000
	used := 0
	for _, m := range d.Matches {
		used += len(m.Path) + len(m.Text) + 64
		for k, v := range m.Captures {
			used += len(k) + len(v) + 8
		}
		if used > budget {
			break
		}
		d.Shown++
	}
	if d.Shown < len(d.Matches) {
		var b bytes.Buffer
		for _, m := range d.Matches {
			fmt.Fprintf(&b, "%s:%d-%d: %s\n", m.Path, m.StartLine, m.EndLine, oneLine(m.Text))
		}
		art, err := ws.Store.WriteArtifact("ast", "ast-grep.txt", b.Bytes(), fmt.Sprintf("all %d matches of %q as path:start-end: text", d.Total, req.Pattern))
		if err != nil {
			return envelope.Envelope{}, err
		}
		env.Artifacts = append(env.Artifacts, art)
		d.Matches = d.Matches[:d.Shown]
		env.Fact("all %d matches of %q in %s", d.Total, req.Pattern, art.Path)
	}
	env.Summary = grepSummary(d, env.Artifacts)
	return env, nil
}

func grepSummary(d *GrepData, arts []envelope.Artifact) string {
	if d.Total == 0 {
		if len(d.Languages) == 0 {
			return fmt.Sprintf("No file of a supported language (%s) under %s", strings.Join(syntax.IDs(), ", "), d.Path)
		}
		return fmt.Sprintf("No match for %q under %s (%s)", d.Pattern, d.Path, strings.Join(d.Languages, ", "))
	}
	s := fmt.Sprintf("%s of %q in %s under %s", count(d.Total, "match", "matches"), d.Pattern, count(d.FilesMatched, "file", "files"), d.Path)
	if d.Truncated {
		s += fmt.Sprintf("; stopped at --max-results %d (more exist: narrow the pattern or PATH, or raise it)", d.Total)
	}
	if len(arts) > 0 {
		s += fmt.Sprintf("; %d shown inline, all in %s (read it with `aw inspect read %s`)", d.Shown, arts[0].Path, arts[0].Path)
	}
	if d.FilesSkipped > 0 {
		s += fmt.Sprintf("; %s skipped (binary, too large or unreadable)", count(d.FilesSkipped, "file", "files"))
	}
	return s
}

func count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

func clipped(c map[string]string) map[string]string {
	out := make(map[string]string, len(c))
	for k, v := range c {
		out[k] = envelope.Clip(v, maxText)
	}
	return out
}

func oneLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}

// lineStarts maps byte offsets to 1-based lines.
type lineStarts []int

func lineIndex(src []byte) lineStarts {
	ls := lineStarts{0}
	for i, c := range src {
		if c == '\n' {
			ls = append(ls, i+1)
		}
	}
	return ls
}

func (ls lineStarts) line(off int) int {
	return sort.Search(len(ls), func(i int) bool { return ls[i] > off })
}
