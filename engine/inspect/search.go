package inspect

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"sync"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/agentic-workspace/aw/engine/envelope"
	"github.com/agentic-workspace/aw/engine/workspace"
)

// SearchRequest is the argument object of inspect.search.
type SearchRequest struct {
	Pattern    string   `json:"pattern" doc:"RE2 regular expression matched against each line (Go syntax: no look-around or back-references); with fixed: true, literal text"`
	Path       string   `json:"path,omitempty" doc:"directory or file to search, relative to the workspace root; default: the whole workspace"`
	Glob       []string `json:"glob,omitempty" doc:"only files matching one of these gitignore-style globs, e.g. ['*.go', '!*_test.go'] (a leading ! excludes)"`
	Fixed      bool     `json:"fixed,omitempty" doc:"treat pattern as literal text, not a regex; default false"`
	IgnoreCase bool     `json:"ignore_case,omitempty" doc:"match case-insensitively; default false"`
	Context    int      `json:"context,omitempty" doc:"lines of context shown before and after each match, 0 to 20; default 0"`
	MaxResults int      `json:"max_results,omitempty" doc:"most matches returned, 1 to 100000; default 1000. Inline output is bounded by maxToolResultChars (20000 characters); the rest goes to an artifact"`
}

// Match is one matching line.
type Match struct {
	Path   string   `json:"path"`
	Line   int64    `json:"line"`
	Column int      `json:"column"` // 1-based byte column of the first match on the line
	Text   string   `json:"text"`
	Before []string `json:"before,omitempty"`
	After  []string `json:"after,omitempty"`
}

// SearchData is data of inspect.search; scripts rely on its field names.
type SearchData struct {
	Pattern      string  `json:"pattern"`
	Path         string  `json:"path"`
	Matches      []Match `json:"matches"`
	Truncated    bool    `json:"truncated"` // more matches exist than max_results
	Total        int     `json:"total"`     // matches found (up to max_results)
	Shown        int     `json:"shown"`     // matches inline; the rest are in the artifact
	FilesMatched int     `json:"filesMatched"`
	FilesSkipped int     `json:"filesSkipped,omitempty"` // binary or unreadable
}

const (
	defaultMaxResults = 1000
	maxMaxResults     = 100000
	maxContext        = 20
	maxLineText       = 500      // bytes of a line kept in a match
	wholeFileLimit    = 16 << 20 // larger files are searched in chunks
)

// Search greps the workspace with an RE2 regex or a literal.
func Search(ctx context.Context, ws *workspace.Workspace, req *SearchRequest) (envelope.Envelope, error) {
	m, err := compileMatcher(req.Pattern, req.Fixed, req.IgnoreCase)
	if err != nil {
		return envelope.Envelope{}, err
	}
	maxResults := req.MaxResults
	switch {
	case maxResults < 0 || req.Context < 0:
		return envelope.Envelope{}, envelope.Errorf(envelope.InvalidInput, "max_results and context must not be negative")
	case maxResults == 0:
		maxResults = defaultMaxResults
	case maxResults > maxMaxResults:
		maxResults = maxMaxResults
	}
	ctxLines := min(req.Context, maxContext)
	include, exclude, err := globFilters(req.Glob)
	if err != nil {
		return envelope.Envelope{}, err
	}
	base, fi, err := walkBase(ws, req.Path)
	if err != nil {
		return envelope.Envelope{}, err
	}
	s := &searcher{m: m, context: ctxLines, res: &resultSet{limit: maxResults}}
	if !fi.IsDir() {
		// One named file: searched even if an ignore rule covers it.
		wk := &walker{}
		s.file(wk, fileEntry(base))
	} else {
		w := &walk{ws: ws, base: base, ignore: walkIgnore(ws),
			visit: func(wk *walker, e entry) {
				if e.typ != 0 {
					return // symlinks and special files are never followed or read
				}
				if !include.Empty() && !include.Match(e.rel) || exclude.Match(e.rel) {
					return
				}
				s.file(wk, e)
			},
			skipDir: func(rel string) bool { return exclude.Match(rel) },
		}
		w.run(ctx, nil)
	}
	if err := ctx.Err(); err != nil {
		return envelope.Envelope{}, envelope.Errorf(envelope.Timeout, "search was cancelled: %v", err)
	}
	matches, truncated := s.res.final()
	d := &SearchData{Pattern: req.Pattern, Path: display(base.Rel), Matches: matches, Truncated: truncated, Total: len(matches), FilesMatched: s.res.files(), FilesSkipped: int(s.skipped)}
	env := envelope.New("", "", d)
	env.Retention.Importance = envelope.Low
	env.Omit("data.matches")
	budget := ws.Settings.MaxToolResultChars - 1000
	used, shown := 0, 0
	for _, mt := range matches {
		used += matchJSONLen(mt)
		if used > budget {
			break
		}
		shown++
	}
	d.Shown = shown
	if shown < len(matches) {
		var b bytes.Buffer
		for _, mt := range matches {
			fmt.Fprintf(&b, "%s:%d:%s\n", mt.Path, mt.Line, mt.Text)
		}
		art, err := ws.Store.WriteArtifact("search", "search.txt", b.Bytes(), fmt.Sprintf("all %d matches of %q as path:line:text", len(matches), req.Pattern))
		if err != nil {
			return envelope.Envelope{}, err
		}
		env.Artifacts = append(env.Artifacts, art)
		d.Matches = matches[:shown]
	}
	if d.Matches == nil {
		d.Matches = []Match{}
	}
	env.Summary = searchSummary(d, env.Artifacts)
	if len(env.Artifacts) > 0 {
		env.Fact("all %d matches of %q in %s", d.Total, req.Pattern, env.Artifacts[0].Path)
	}
	return env, nil
}

func searchSummary(d *SearchData, arts []envelope.Artifact) string {
	if d.Total == 0 {
		return fmt.Sprintf("No match for %q under %s", d.Pattern, d.Path)
	}
	s := fmt.Sprintf("%s of %q in %s under %s", plural(d.Total, "match", "matches"), d.Pattern, plural(d.FilesMatched, "file", "files"), d.Path)
	if d.Truncated {
		s += fmt.Sprintf("; stopped at --max-results %d (more exist: narrow the pattern, PATH or --glob, or raise it)", d.Total)
	}
	if len(arts) > 0 {
		s += fmt.Sprintf("; %d shown inline, all in %s (read it with `aw inspect read %s`)", d.Shown, arts[0].Path, arts[0].Path)
	}
	if d.FilesSkipped > 0 {
		s += fmt.Sprintf("; %s skipped (binary or unreadable)", plural(d.FilesSkipped, "file", "files"))
	}
	return s
}

func matchJSONLen(m Match) int {
	n := jsonLen(m.Path) + jsonLen(m.Text) + 48
	for _, c := range m.Before {
		n += jsonLen(c) + 1
	}
	for _, c := range m.After {
		n += jsonLen(c) + 1
	}
	return n
}

// walkBase resolves the directory (or file) a walk starts at.
func walkBase(ws *workspace.Workspace, p string) (workspace.Path, os.FileInfo, error) {
	base, err := resolve(ws, p)
	if err != nil {
		return base, nil, err
	}
	fi, err := statPath(base, p)
	if err != nil {
		return base, nil, err
	}
	return base, fi, nil
}

// globFilters splits --glob values into include and "!" exclude sets.
func globFilters(globs []string) (include, exclude *workspace.Patterns, err error) {
	var inc, exc []string
	for _, g := range globs {
		neg := strings.HasPrefix(g, "!")
		g = strings.TrimPrefix(g, "!")
		if !doublestar.ValidatePattern(strings.Trim(g, "/")) {
			return nil, nil, envelope.Errorf(envelope.InvalidInput, "--glob %q is not a valid glob (unbalanced [ or a bad escape)", g).With("field", "glob")
		}
		if neg {
			exc = append(exc, g)
		} else {
			inc = append(inc, g)
		}
	}
	return workspace.NewPatterns(inc), workspace.NewPatterns(exc), nil
}

// searcher holds one search's matcher and results; file is called by many
// workers at once.
type searcher struct {
	m       *matcher
	context int
	res     *resultSet
	mu      sync.Mutex
	skipped int64
}

func (s *searcher) skip() {
	s.mu.Lock()
	s.skipped++
	s.mu.Unlock()
}

func (s *searcher) file(wk *walker, e entry) {
	if s.res.beyond(e.rel) {
		return
	}
	buf, more, err := readSmall(e.abs(), wk.buf, wholeFileLimit)
	if cap(buf) <= wholeFileLimit {
		wk.buf = buf[:0]
	}
	if err != nil {
		s.skip()
		return
	}
	if more {
		s.bigFile(e)
		return
	}
	var out []Match
	if s.m.lit != nil && len(s.m.lit) > 0 && s.m.index(buf) < 0 {
		return
	}
	if bytes.IndexByte(buf, 0) >= 0 {
		s.skip()
		return
	}
	out, _ = s.region(out, e.rel, buf, 1, true)
	s.res.add(out)
}

// bigFile searches a file too large to hold whole, chunk by chunk; context
// lines are taken from within a chunk.
func (s *searcher) bigFile(e entry) {
	f, err := os.Open(e.abs())
	if err != nil {
		s.skip()
		return
	}
	defer f.Close()
	buf := make([]byte, wholeFileLimit)
	var out []Match
	line := int64(1)
	carry := 0
	first := true
	for {
		n, err := io.ReadFull(f, buf[carry:])
		data := buf[:carry+n]
		eof := err != nil
		if first {
			first = false
			if bytes.IndexByte(data[:min(len(data), sniffSize)], 0) >= 0 {
				s.skip()
				return
			}
		}
		end := len(data)
		if !eof {
			if i := bytes.LastIndexByte(data, '\n'); i >= 0 {
				end = i + 1
			}
		}
		out, line = s.region(out, e.rel, data[:end], line, eof)
		if eof {
			break
		}
		carry = copy(buf, data[end:])
	}
	s.res.add(out)
}

// region finds the matching lines of b, whose first line is number line.
// It returns the matches and the number of the line after b.
func (s *searcher) region(out []Match, rel string, b []byte, line int64, final bool) ([]Match, int64) {
	m := s.m
	counted := 0 // line is the number of the line starting at counted
	from := 0
	for from <= len(b) {
		var pos, lineStart, lineEnd, col int
		if m.prefiltered() {
			i := m.index(b[from:])
			if i < 0 {
				break
			}
			pos = from + i
			lineStart = bytes.LastIndexByte(b[:pos], '\n') + 1
			lineEnd = lineEndAt(b, pos)
			col = pos - lineStart + 1
			if !m.pureLit {
				loc := m.re.FindIndex(b[lineStart:lineEnd])
				if loc == nil {
					from = lineEnd + 1
					continue
				}
				col = loc[0] + 1
			}
		} else {
			if from >= len(b) {
				break
			}
			loc := m.re.FindIndex(b[from:])
			if loc == nil {
				break
			}
			pos = from + loc[0]
			lineStart = bytes.LastIndexByte(b[:pos], '\n') + 1
			lineEnd = lineEndAt(b, pos)
			col = pos - lineStart + 1
			if from+loc[1] > lineEnd || lineStart < from {
				// The match ran past the line (or started on an earlier
				// one): decide on the line alone.
				l := m.re.FindIndex(b[lineStart:lineEnd])
				if l == nil {
					from = lineEnd + 1
					continue
				}
				col = l[0] + 1
			}
		}
		line += int64(bytes.Count(b[counted:lineStart], []byte{'\n'}))
		counted = lineStart
		text, _, _ := clipLine(trimCR(b[lineStart:lineEnd]), maxLineText)
		mt := Match{Path: rel, Line: line, Column: col, Text: text}
		if s.context > 0 {
			mt.Before, mt.After = contextLines(b, lineStart, lineEnd, s.context)
		}
		out = append(out, mt)
		from = lineEnd + 1
		if len(out) > s.res.limit {
			break // this file alone fills the result
		}
	}
	line += int64(bytes.Count(b[counted:], []byte{'\n'}))
	return out, line
}

func lineEndAt(b []byte, pos int) int {
	if pos >= len(b) {
		return len(b)
	}
	if i := bytes.IndexByte(b[pos:], '\n'); i >= 0 {
		return pos + i
	}
	return len(b)
}

func trimCR(b []byte) []byte {
	if len(b) > 0 && b[len(b)-1] == '\r' {
		return b[:len(b)-1]
	}
	return b
}

// contextLines returns up to n lines before and after the line
// b[start:end].
func contextLines(b []byte, start, end, n int) (before, after []string) {
	p := start
	for i := 0; i < n && p > 0; i++ {
		s := bytes.LastIndexByte(b[:p-1], '\n') + 1
		t, _, _ := clipLine(trimCR(b[s:p-1]), maxLineText)
		before = append(before, t)
		p = s
	}
	for i, j := 0, len(before)-1; i < j; i, j = i+1, j-1 {
		before[i], before[j] = before[j], before[i]
	}
	q := end
	for i := 0; i < n && q < len(b); i++ {
		s := q + 1
		if s > len(b) {
			break
		}
		e := lineEndAt(b, s)
		if s == len(b) {
			break
		}
		t, _, _ := clipLine(trimCR(b[s:e]), maxLineText)
		after = append(after, t)
		q = e
	}
	return before, after
}

// resultSet keeps the first limit matches by (path, line) whatever order
// the workers find them in: when it grows past twice the limit it sorts and
// cuts, and files whose path sorts after the cut can be skipped unread.
type resultSet struct {
	mu      sync.Mutex
	limit   int
	all     []Match
	cutoff  string // files after this path cannot make the result ("": none)
	dropped bool
}

func (r *resultSet) beyond(rel string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.cutoff != "" && rel > r.cutoff {
		r.dropped = true
		return true
	}
	return false
}

func (r *resultSet) add(ms []Match) {
	if len(ms) == 0 {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.cutoff != "" && ms[0].Path > r.cutoff {
		r.dropped = true
		return
	}
	r.all = append(r.all, ms...)
	if len(r.all) > 2*r.limit+1024 {
		r.cut()
	}
}

func (r *resultSet) cut() {
	sortMatches(r.all)
	if len(r.all) > r.limit {
		r.dropped = true
		r.cutoff = r.all[r.limit-1].Path
		clear(r.all[r.limit:])
		r.all = r.all[:r.limit]
	}
}

func (r *resultSet) final() ([]Match, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.cut()
	return r.all, r.dropped
}

func (r *resultSet) files() int {
	n := 0
	for i := range r.all {
		if i == 0 || r.all[i].Path != r.all[i-1].Path {
			n++
		}
	}
	return n
}

func sortMatches(ms []Match) {
	sort.Slice(ms, func(i, j int) bool {
		if ms[i].Path != ms[j].Path {
			return ms[i].Path < ms[j].Path
		}
		return ms[i].Line < ms[j].Line
	})
}
