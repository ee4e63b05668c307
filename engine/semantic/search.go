// Package semantic owns inspect.semantic_search and the index it reads: a
// BM25 ranking over code-aware chunks (declarations where the language is
// known, windows of lines elsewhere), kept incrementally under
// .agentic/index/, with an optional re-ranking by an OpenAI-compatible
// embeddings endpoint. It reads the workspace through the same walk as
// inspect.search (jail, denyPaths, list.ignore, .gitignore), so a file
// search cannot see is never indexed. It writes only under .agentic/index/
// (never at --tier read) and never prints.
//
// Decisions: BM25 is written by hand (a library's package init alone costs
// more than aw's start-up budget). The index has its own lock file beside
// it, taken the same way as the store lock, so a build of several seconds
// never stalls other state writes. Segments are memory-mapped and checked
// structurally when opened (every offset and reference inside its
// section), and postings are decoded with bounds checks: a damaged index
// is rebuilt, never trusted and never a crash.
package semantic

import (
	"bufio"
	"container/heap"
	"context"
	"fmt"
	"math"
	"os"
	"runtime/debug"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/agentic-workspace/aw/engine/envelope"
	"github.com/agentic-workspace/aw/engine/workspace"
)

// SearchRequest is the argument object of inspect.semantic_search.
type SearchRequest struct {
	Query string `json:"query" doc:"what to look for, in words or identifiers: 'where are RFC 3339 timestamps parsed'"`
	Path  string `json:"path,omitempty" doc:"only chunks of files under this directory (or this file), relative to the workspace root; default: the whole workspace"`
	Limit int    `json:"limit,omitempty" doc:"most chunks returned, 1 to 100; default 10"`
	Lang  string `json:"lang,omitempty" doc:"only files of this language: go, python, javascript, typescript, c, cpp, rust, java, shell, markdown, ... (a file extension works too: py, ts)"`
}

// Result is one ranked chunk.
type Result struct {
	Path      string  `json:"path"`
	StartLine int     `json:"startLine"`
	EndLine   int     `json:"endLine"`
	Symbol    string  `json:"symbol"`
	Score     float64 `json:"score"`
	Snippet   string  `json:"snippet"`
}

// SearchData is data of inspect.semantic_search.
type SearchData struct {
	Query      string      `json:"query"`
	Path       string      `json:"path"`
	Results    []Result    `json:"results"`
	Ranking    string      `json:"ranking"` // bm25 or hybrid
	Embeddings *EmbedState `json:"embeddings,omitempty"`
	Index      *Update     `json:"index"`
}

const (
	defaultLimit = 10
	maxLimit     = 100
	snippetLines = 12
	snippetBytes = 800
	maxPerFile   = 2 // chunks of one file in the results
	maxQuery     = 1000
)

// Search ranks the workspace's chunks for a query. Segments are
// memory-mapped: one truncated under the mapping by another process makes a
// read fault, which is taken as a damaged index (rebuilt once), never a
// crash.
func Search(ctx context.Context, ws *workspace.Workspace, req *SearchRequest) (envelope.Envelope, error) {
	var env envelope.Envelope
	var err error
	for _, rebuild := range []bool{false, true} {
		if faulted := guarded(func() { env, err = search(ctx, ws, req, rebuild) }); !faulted {
			return env, err
		}
	}
	return envelope.Envelope{}, envelope.Errorf(envelope.Internal, "the index's files changed while they were read, twice: another process is writing .agentic/index/; run `aw inspect index rebuild`")
}

// guarded runs fn with memory faults turned into a recovered panic, and
// reports whether one happened.
func guarded(fn func()) (faulted bool) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			if _, fault := r.(interface{ Addr() uintptr }); !fault {
				panic(r)
			}
			faulted = true
		}
	}()
	fn()
	return false
}

func search(ctx context.Context, ws *workspace.Workspace, req *SearchRequest, rebuild bool) (envelope.Envelope, error) {
	q := strings.TrimSpace(req.Query)
	if q == "" {
		return envelope.Envelope{}, envelope.Errorf(envelope.InvalidInput, "query is required: say what the code does, e.g. `aw inspect semantic-search 'where are timestamps parsed'`").With("field", "query")
	}
	if len(q) > maxQuery {
		return envelope.Envelope{}, envelope.Errorf(envelope.InvalidInput, "query is %d bytes; at most %d: ask in a sentence, not a document", len(q), maxQuery).With("field", "query")
	}
	terms := queryTerms(q)
	if len(terms) == 0 {
		return envelope.Envelope{}, envelope.Errorf(envelope.InvalidInput, "query %q has no searchable word (only short or common words): name what the code does or an identifier", q).With("field", "query")
	}
	limit, err := envelope.Limit(req.Limit, defaultLimit, maxLimit)
	if err != nil {
		return envelope.Envelope{}, err
	}
	lang := -1
	if req.Lang != "" {
		l, ok := langByName(req.Lang)
		if !ok {
			return envelope.Envelope{}, envelope.Errorf(envelope.InvalidInput, "--lang %q is not a language aw knows: use one of %s (or a file extension)", req.Lang, strings.Join(languageNames(), ", ")).With("field", "lang")
		}
		lang = int(l)
	}
	scope, err := scopeOf(ws, req.Path)
	if err != nil {
		return envelope.Envelope{}, err
	}
	ix, up, err := openIndex(ctx, ws, rebuild)
	if err != nil {
		return envelope.Envelope{}, err
	}
	defer ix.close()
	hits, err := ix.rank(terms, func(path string, l uint8) bool {
		return (lang < 0 || int(l) == lang) && scope.covers(path) && !ws.Jail.Denied(path)
	})
	if err != nil {
		// A segment that passed its checks but whose postings do not decode:
		// rebuild once and rank again.
		ix.close()
		if ix, up, err = openIndex(ctx, ws, true); err != nil {
			return envelope.Envelope{}, err
		}
		defer ix.close()
		up.Reason = "a damaged segment was found while ranking"
		if hits, err = ix.rank(terms, func(path string, l uint8) bool {
			return (lang < 0 || int(l) == lang) && scope.covers(path) && !ws.Jail.Denied(path)
		}); err != nil {
			return envelope.Envelope{}, envelope.Errorf(envelope.Internal, "the rebuilt index does not read back (%v); run `aw inspect index rebuild`", err)
		}
	}
	d := &SearchData{Query: q, Path: scope.display(), Ranking: "bm25", Index: up}
	pool := limit
	st := embeddingsConfigured(ws)
	if st != nil && st.Status == "" {
		pool = max(limit, rerankPool) // the candidates the embeddings re-rank
	}
	results := ix.results(ws, ix.diversify(hits, pool))
	if st != nil {
		d.Embeddings = st
		if st.Status == "" {
			results = rerank(ctx, ws, q, results, st)
			if st.Status == "used" {
				d.Ranking = "hybrid"
			}
		}
	}
	if len(results) > limit {
		results = results[:limit]
	}
	d.Results = results
	env := envelope.New("", "", d)
	env.Retention.Importance = envelope.Low
	env.Omit("data.results")
	env.Summary = summary(d)
	return env, nil
}

func summary(d *SearchData) string {
	var s string
	if len(d.Results) == 0 {
		s = fmt.Sprintf("No chunk under %s matches %q; try other words or `aw inspect search PATTERN`", d.Path, d.Query)
	} else {
		top := d.Results[0]
		s = fmt.Sprintf("%s for %q under %s (%s); best: %s:%d", plural(len(d.Results), "chunk"), d.Query, d.Path, d.Ranking, top.Path, top.StartLine)
		if top.Symbol != "" {
			s += " " + top.Symbol
		}
	}
	if d.Index != nil && d.Index.Rebuilt {
		s += fmt.Sprintf("; index built (%s) in %d ms", d.Index.Reason, d.Index.DurationMs)
	} else if d.Index != nil && d.Index.Added+d.Index.Changed+d.Index.Removed > 0 {
		s += fmt.Sprintf("; index updated (%d added, %d changed, %d removed)", d.Index.Added, d.Index.Changed, d.Index.Removed)
	}
	if d.Embeddings != nil && d.Embeddings.Status != "used" && d.Embeddings.Status != "" {
		s += "; embeddings not used: " + d.Embeddings.Reason
	}
	return s
}

// pathScope is the PATH argument: a directory or one file.
type pathScope struct {
	rel  string
	file bool
}

func scopeOf(ws *workspace.Workspace, p string) (pathScope, error) {
	if p == "" {
		return pathScope{rel: scopeRel(ws)}, nil
	}
	jp, err := ws.Jail.Resolve(p, workspace.Read)
	if err != nil {
		return pathScope{}, err
	}
	if jp.Outside {
		return pathScope{}, envelope.Errorf(envelope.InvalidInput, "%s is outside the workspace root; semantic search covers the workspace only (use `aw inspect search` there)", p).With("path", p)
	}
	fi, err := os.Stat(jp.Abs)
	if err != nil {
		return pathScope{}, envelope.Errorf(envelope.NotFound, "%s does not exist; check the path with `aw inspect list` or `aw inspect find`", p).With("path", p)
	}
	return pathScope{rel: jp.Rel, file: !fi.IsDir()}, nil
}

func (s pathScope) covers(path string) bool {
	if s.rel == "" || s.rel == "." {
		return true
	}
	if s.file {
		return path == s.rel
	}
	return path == s.rel || strings.HasPrefix(path, s.rel+"/")
}

func (s pathScope) display() string {
	if s.rel == "" {
		return "."
	}
	return s.rel
}

// qterm is one term of a query and its weight (1 for the query's own
// words, less for the forms they were expanded to).
type qterm struct {
	text   string
	weight float64
}

// queryTerms analyzes a query like a chunk's text: the same splitting,
// stemming and stop words, plus whole identifiers (for the symbol field)
// and the abbreviations code uses for common words.
func queryTerms(q string) []qterm {
	w := map[string]float64{}
	add := func(t string, weight float64) {
		if weight > w[t] {
			w[t] = weight
		}
	}
	var buf []byte
	scanRuns([]byte(q), func(run []byte) {
		parts := 0
		buf = splitIdent(run, buf, func(word []byte) {
			parts++
			t, ok := term(word)
			if !ok {
				return
			}
			s := string(t)
			add(s, 1)
			for _, ab := range abbreviations()[s] {
				add(ab, 0.5)
			}
		})
		if parts > 1 {
			add(strings.ReplaceAll(strings.ToLower(string(run)), "_", ""), 1)
		}
	})
	out := make([]qterm, 0, len(w))
	for t, x := range w {
		out = append(out, qterm{t, x})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].text < out[j].text })
	return out
}

// BM25F parameters: per-field weights and length normalization. A
// declaration's name and doc comment say what it does in fewer words than
// its body, so they weigh more; the path names the package.
var (
	fieldWeight = [nFields]float64{fSym: 2, fPath: 2.5, fDoc: 2.5, fBody: 1}
	fieldB      = [nFields]float64{fSym: 0.3, fPath: 0.3, fDoc: 0.5, fBody: 0.75}
)

const k1 = 1.2

// hit is one scored chunk.
type hit struct {
	seg   int
	chunk uint32
	score float64
}

// rank scores every chunk holding a query term and returns those keep
// passes, in no order: diversify takes the best.
func (ix *index) rank(terms []qterm, keep func(path string, lang uint8) bool) ([]hit, error) {
	N := float64(ix.nChunks)
	var out []hit
	// df over every segment, so a term scores the same wherever it is.
	df := make([]int, len(terms))
	lists := make([][][]byte, len(ix.segs))
	for si, s := range ix.segs {
		lists[si] = make([][]byte, len(terms))
		for ti, t := range terms {
			l, n := s.lookup(t.text)
			lists[si][ti] = l
			df[ti] += n
		}
	}
	for si, s := range ix.segs {
		scores := make([]float32, s.nChunks)
		var touched []uint32
		for ti, t := range terms {
			if lists[si][ti] == nil {
				continue
			}
			idf := math.Log(1 + (N-float64(df[ti])+0.5)/(float64(df[ti])+0.5))
			if idf <= 0 {
				continue
			}
			err := s.eachPosting(lists[si][ti], func(c uint32, tf *[nFields]uint8) {
				lens, _ := s.chunkLens(c)
				var x float64
				for k := 0; k < nFields; k++ {
					if tf[k] == 0 {
						continue
					}
					norm := 1 - fieldB[k] + fieldB[k]*float64(lens[k])/ix.lenAvg[k]
					x += fieldWeight[k] * float64(tf[k]) / norm
				}
				if scores[c] == 0 {
					touched = append(touched, c)
				}
				scores[c] += float32(t.weight * idf * x / (k1 + x))
			})
			if err != nil {
				return nil, err
			}
		}
		live := ix.live[si]
		factor := make([]float64, s.nFiles) // 0: not yet judged; -1: filtered out
		for _, c := range touched {
			_, f := s.chunkLens(c)
			if !live[f] {
				continue
			}
			k := factor[f]
			if k == 0 {
				k = -1
				if keep(s.filePath(f), s.fileLang(f)) {
					k = rankFactor(s.fileFlags(f))
				}
				factor[f] = k
			}
			if k <= 0 {
				continue
			}
			sc := float64(scores[c]) * k
			out = append(out, hit{si, c, sc})
		}
	}
	return out, nil
}

// hits orders hits best first: by score, then where they are (so equal
// scores list the same way every time). It is a heap: a query takes the
// best few of tens of thousands, and sorting them all was most of a
// query's ranking.
type hits []hit

func (h hits) Len() int { return len(h) }
func (h hits) Less(i, j int) bool {
	if h[i].score != h[j].score {
		return h[i].score > h[j].score
	}
	if h[i].seg != h[j].seg {
		return h[i].seg < h[j].seg
	}
	return h[i].chunk < h[j].chunk
}
func (h hits) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *hits) Push(x any)   { *h = append(*h, x.(hit)) }
func (h *hits) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

func isTestPath(p string) bool {
	return strings.Contains(p, "_test.") || strings.HasPrefix(p, "testdata/") || strings.Contains(p, "/testdata/") ||
		strings.HasPrefix(p, "test/") || strings.Contains(p, "/test/") || strings.Contains(p, "/tests/")
}

// results turns hits into results with snippets read from the files.
func (ix *index) results(ws *workspace.Workspace, hits []hit) []Result {
	out := make([]Result, 0, len(hits))
	files := map[string][]string{}
	for _, h := range hits {
		s := ix.segs[h.seg]
		ci := s.chunk(h.chunk)
		path := s.filePath(ci.file)
		lines, ok := files[path]
		if !ok || len(lines) < min(ci.end, ci.start+snippetLines) {
			lines = readLines(ws, path, ci.start+snippetLines)
			files[path] = lines
		}
		if lines == nil {
			continue // gone or unreadable since it was indexed
		}
		out = append(out, Result{Path: path, StartLine: ci.start, EndLine: ci.end, Symbol: ci.symbol,
			Score: math.Round(h.score*1000) / 1000, Snippet: snippet(lines, ci.start, ci.end)})
	}
	return out
}

// readLines reads a file through the jail (nil if it cannot be read).
func readLines(ws *workspace.Workspace, rel string, upTo int) []string {
	jp, err := ws.Jail.Resolve(rel, workspace.Read)
	if err != nil {
		return nil
	}
	f, err := os.Open(jp.Abs)
	if err != nil {
		return nil
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), maxFileBytes+1)
	for len(lines) < upTo && sc.Scan() {
		lines = append(lines, sc.Text())
	}
	if lines == nil {
		lines = []string{}
	}
	return lines
}

// snippet is the first lines of a chunk, bounded in lines and bytes.
func snippet(lines []string, start, end int) string {
	var b strings.Builder
	for i := start; i <= end && i <= len(lines) && i < start+snippetLines; i++ {
		l := strings.TrimRight(lines[i-1], "\r")
		if b.Len()+len(l)+1 > snippetBytes {
			rest := snippetBytes - b.Len()
			if rest > 0 {
				cut := l[:min(rest, len(l))]
				for len(cut) > 0 && !utf8.ValidString(cut) {
					cut = cut[:len(cut)-1]
				}
				b.WriteString(cut)
			}
			b.WriteString("…")
			break
		}
		b.WriteString(l)
		b.WriteByte('\n')
	}
	return strings.ToValidUTF8(b.String(), "\uFFFD")
}

// diversify keeps at most maxPerFile chunks of any one file, best first,
// so one long file does not fill the answer.
func (ix *index) diversify(ranked []hit, limit int) []hit {
	out := make([]hit, 0, limit)
	per := map[[2]int]int{}
	best := hits(ranked)
	heap.Init(&best)
	for best.Len() > 0 {
		h := heap.Pop(&best).(hit)
		_, f := ix.segs[h.seg].chunkLens(h.chunk)
		k := [2]int{h.seg, f}
		if per[k] >= maxPerFile {
			continue
		}
		per[k]++
		out = append(out, h)
		if len(out) == limit {
			break
		}
	}
	return out
}
