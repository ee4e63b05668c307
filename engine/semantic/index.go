package semantic

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agentic-workspace/aw/engine/inspect"
	"github.com/agentic-workspace/aw/engine/snapshot"
	"github.com/agentic-workspace/aw/engine/store"
	"github.com/agentic-workspace/aw/engine/treewatch"
	"github.com/agentic-workspace/aw/engine/workspace"
)

// The index lives in .agentic/index/: a manifest naming every indexed file
// (stat fields, content hash, segment) and one or two segments, the base
// and a delta holding the files changed since the base was built. An
// update rewrites only the delta; when the delta grows past a tenth of the
// base, or the base holds too many dead files, everything is rebuilt.
const (
	indexDir     = "index"
	manifestName = "manifest"
	lockName     = "index/lock"
	maxFileBytes = 1 << 20 // larger files are data or generated, not code to read
	// A file modified this close to the last update may have changed again
	// within the same mtime tick: it is hashed, never trusted by its stat.
	racyWindow = 2 * time.Second
)

var errStale = errors.New("index format changed")

// Update is what refreshing the index did.
type Update struct {
	Rebuilt   bool   `json:"rebuilt"`
	Reason    string `json:"reason,omitempty"` // why it was (re)built from scratch
	Added     int    `json:"added"`
	Changed   int    `json:"changed"`
	Removed   int    `json:"removed"`
	Skipped   int    `json:"skipped"` // binary, over 1 MiB or unreadable
	Persisted bool   `json:"persisted"`
	// Watched says only the paths the broker's watch of the tree named were
	// looked at; false: every file was statted.
	Watched    bool  `json:"watched"`
	DurationMs int64 `json:"durationMs"`
}

// index is an open, up-to-date index.
type index struct {
	m    *manifest
	segs []*segment
	// live[i][f] is whether file f of segment i is still current.
	live    [][]bool
	nChunks int // chunks of live files
	lenAvg  [nFields]float64
}

func (ix *index) close() {
	for _, s := range ix.segs {
		if s.close != nil {
			s.close()
		}
	}
}

// indexPath is the absolute path of a file of the index.
func indexPath(ws *workspace.Workspace, name string) string {
	return ws.Store.Path(indexDir, name)
}

func segName(id uint32) string { return "seg-" + strconv.FormatUint(uint64(id), 10) + ".bm25" }

// persistOK says whether this call may write the index: at --tier read
// nothing under the workspace changes, so the index is brought up to date
// in memory for this call only.
func persistOK(ws *workspace.Workspace) bool { return ws.Allows(workspace.TierWrite) }

// openIndex brings the index up to date with the workspace and opens it.
// rebuild forces a build from scratch. Other aw processes wait on the
// index lock while one updates it; a damaged or outdated index is rebuilt.
func openIndex(ctx context.Context, ws *workspace.Workspace, rebuild bool) (*index, *Update, error) {
	start := time.Now()
	persist := persistOK(ws)
	if persist {
		unlock, err := ws.Store.LockFile(lockName)
		if err != nil {
			return nil, nil, err
		}
		defer unlock()
	}
	base := scopeRel(ws)
	up := &Update{}
	var m *manifest
	var segs []*segment
	reason := ""
	if rebuild {
		reason = "a rebuild was asked for"
	} else {
		m, segs, reason = loadIndex(ws, base)
	}
	// What changed since the manifest, from the broker's watch of the
	// tree; asked before anything is read, so a change made meanwhile is in
	// the next answer.
	token := ""
	if m != nil {
		token = m.watch
	}
	ch := treewatch.Since(ctx, ws, token)
	if m == nil {
		up.Rebuilt, up.Reason = true, reason
		ix, err := build(ctx, ws, base, up, persist, ch.Token)
		up.DurationMs = time.Since(start).Milliseconds()
		return ix, up, err
	}
	ix, full, err := refresh(ctx, ws, m, segs, up, persist, ch)
	if err != nil {
		return nil, nil, err
	}
	if full != "" {
		ix.close()
		*up = Update{Rebuilt: true, Reason: full}
		ix, err = build(ctx, ws, base, up, persist, ch.Token)
	}
	up.DurationMs = time.Since(start).Milliseconds()
	return ix, up, err
}

// loadIndex reads the manifest and maps its segments, or says why it
// cannot be used.
func loadIndex(ws *workspace.Workspace, base string) (*manifest, []*segment, string) {
	raw, err := os.ReadFile(indexPath(ws, manifestName))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, "no index yet"
	}
	if err != nil {
		return nil, nil, fmt.Sprintf("the manifest could not be read (%v)", err)
	}
	m, err := decodeManifest(raw)
	if err != nil {
		return nil, nil, err.Error()
	}
	if m.base != base {
		return nil, nil, fmt.Sprintf("the index covered %s, this call covers %s", displayDir(m.base), displayDir(base))
	}
	var segs []*segment
	for _, id := range m.segments {
		s, err := loadSegment(ws, id)
		if err != nil {
			for _, o := range segs {
				o.close()
			}
			return nil, nil, fmt.Sprintf("segment %d: %v", id, err)
		}
		segs = append(segs, s)
	}
	return m, segs, ""
}

func loadSegment(ws *workspace.Workspace, id uint32) (*segment, error) {
	data, unmap, err := store.MapFile(indexPath(ws, segName(id)))
	if err != nil {
		return nil, err
	}
	s, err := openSegment(data)
	if err != nil {
		unmap()
		return nil, err
	}
	s.id, s.close = id, unmap
	return s, nil
}

// scopeRel is the root-relative directory the index covers: the jail's
// scope ("." for the whole workspace).
func scopeRel(ws *workspace.Workspace) string {
	rel, err := filepath.Rel(ws.Root, ws.Jail.Scope)
	if err != nil || rel == "" {
		return "."
	}
	return filepath.ToSlash(rel)
}

func displayDir(rel string) string {
	if rel == "" || rel == "." {
		return "the workspace root"
	}
	return rel
}

// scan is one walk over the workspace: which files exist, their stat, and
// the analysis of those that must be (re)read.
type scan struct {
	mu   sync.Mutex
	seen map[string]snapshot.Stat
	kept map[string]bool // read and analyzed, or known by hash
	// unchanged[f.slot] marks manifest entries whose stat matched: set
	// without the lock, since a walk visits the tree's files from every
	// core at once and nearly all of them take this path.
	unchanged   []atomic.Bool
	analyzed    []analyzedFile
	stats       map[string]*fileEntry // entries whose stat changed but content did not
	binary      []*fileEntry          // files read and skipped (binary, too large): in no segment
	knownBinary atomic.Int64          // files skipped before, unchanged: not read
	pool        chan *analyzer
	skipped     int
}

func newScan() *scan {
	n := runtime.GOMAXPROCS(0)
	sc := &scan{seen: map[string]snapshot.Stat{}, kept: map[string]bool{}, stats: map[string]*fileEntry{}, pool: make(chan *analyzer, n)}
	for i := 0; i < n; i++ {
		sc.pool <- nil // made when first needed: most calls analyze nothing
	}
	return sc
}

// analyzer takes an analyzer from the pool; the caller puts it back.
func (sc *scan) analyzer() *analyzer {
	if a := <-sc.pool; a != nil {
		return a
	}
	return newAnalyzer()
}

func entryOf(rel string, st snapshot.Stat) fileEntry {
	return fileEntry{path: rel, size: st.Size, mtime: st.Mtime, ino: st.Ino}
}

// walk runs the shared file walk (the jail, denyPaths, list.ignore and
// .gitignore exactly as search honours them) over base.
func (sc *scan) walk(ctx context.Context, ws *workspace.Workspace, base string, m *manifest) error {
	_, skipped, err := sc.fileWalk(m, true).Run(ctx, ws, base)
	sc.skipped = skipped + int(sc.knownBinary.Load())
	return err
}

// changedOnly judges only the paths a watch of the tree says changed since
// m was saved: every other file of m is as it was. It is false when a walk
// is needed after all: a directory or a .gitignore changed, a directory
// holding indexed files went, or too many paths changed to judge one by
// one.
func (sc *scan) changedOnly(ctx context.Context, ws *workspace.Workspace, m *manifest, paths []string) bool {
	if len(paths) > maxWatchedPaths {
		return false
	}
	fw := sc.fileWalk(m, false)
	for i := range sc.unchanged {
		sc.unchanged[i].Store(true)
	}
	var mine []string
	for _, p := range paths {
		if m.base != "." && p != m.base && !strings.HasPrefix(p, m.base+"/") {
			continue
		}
		if e := m.files[p]; e != nil {
			sc.unchanged[e.slot].Store(false)
		}
		mine = append(mine, p)
	}
	skipped, walkFor := fw.Paths(ctx, ws, mine)
	for _, p := range walkFor {
		fi, err := os.Lstat(filepath.Join(ws.Root, filepath.FromSlash(p)))
		switch {
		case path.Base(p) == ".gitignore" || err == nil && fi.IsDir():
			return false
		case err != nil && m.files[p] == nil && m.holds(p):
			return false // a directory of indexed files went
		}
		// Gone, or no longer a regular file: out of the index if it was in.
	}
	sc.skipped = skipped
	for _, e := range m.files {
		if e.seg == 0 && sc.unchanged[e.slot].Load() {
			sc.skipped++
		}
	}
	return ctx.Err() == nil
}

// maxWatchedPaths is how many changed paths are judged one by one; more
// are walked for (a branch switch, a generator).
const maxWatchedPaths = 2000

// holds reports whether m indexes a file below the directory dir.
func (m *manifest) holds(dir string) bool {
	for p := range m.files {
		if strings.HasPrefix(p, dir+"/") {
			return true
		}
	}
	return false
}

// fileWalk is the walk's judgement of each file against m (nil: none):
// trusted by its stat when trust says so and it is not racy, else read and
// compared by hash, analyzed when it changed.
func (sc *scan) fileWalk(m *manifest, trust bool) inspect.FileWalk {
	var cutoff int64
	if m != nil {
		cutoff = m.builtAt - int64(racyWindow)
		sc.unchanged = make([]atomic.Bool, len(m.files))
		i := 0
		for _, f := range m.files {
			f.slot = i
			i++
		}
	}
	return inspect.FileWalk{
		Limit: maxFileBytes,
		Unchanged: func(rel string, st snapshot.Stat) bool {
			if trust && m != nil && st.Mode.IsRegular() {
				if old := m.files[rel]; old != nil {
					e := entryOf(rel, st)
					if e.size == old.size && e.mtime == old.mtime && e.ino == old.ino && e.mtime < cutoff {
						sc.unchanged[old.slot].Store(true)
						if old.seg == 0 {
							sc.knownBinary.Add(1)
						}
						return true
					}
				}
			}
			sc.mu.Lock()
			sc.seen[rel] = st
			sc.mu.Unlock()
			return false
		},
		Skip: func(rel string) {
			sc.mu.Lock()
			e := entryOf(rel, sc.seen[rel])
			sc.kept[rel] = true
			sc.binary = append(sc.binary, &e)
			sc.mu.Unlock()
		},
		Visit: func(rel string, content []byte) {
			sum := sha256.Sum256(content)
			sc.mu.Lock()
			st := sc.seen[rel]
			sc.kept[rel] = true
			sc.mu.Unlock()
			e := entryOf(rel, st)
			copy(e.hash[:], sum[:16])
			if m != nil {
				if old := m.files[rel]; old != nil && old.hash == e.hash {
					if e.size != old.size || e.mtime != old.mtime || e.ino != old.ino {
						e.seg, e.chunks = old.seg, old.chunks
						sc.mu.Lock()
						sc.stats[rel] = &e
						sc.mu.Unlock()
					}
					return
				}
			}
			a := sc.analyzer()
			af := a.file(e, content)
			sc.pool <- a
			sc.mu.Lock()
			sc.analyzed = append(sc.analyzed, af)
			sc.mu.Unlock()
		},
	}
}

// build indexes every file from scratch into one base segment.
func build(ctx context.Context, ws *workspace.Workspace, base string, up *Update, persist bool, watch string) (*index, error) {
	sc := newScan()
	if err := sc.walk(ctx, ws, base, nil); err != nil {
		return nil, err
	}
	up.Added, up.Skipped = len(sc.analyzed), sc.skipped
	m := &manifest{base: base, builtAt: time.Now().UnixNano(), watch: watch, files: map[string]*fileEntry{}}
	if persist {
		// Continue the numbering of what is on disk, so a new segment never
		// takes the name of one a reader may still have open.
		if raw, err := os.ReadFile(indexPath(ws, manifestName)); err == nil {
			if old, err := decodeManifest(raw); err == nil {
				m.nextSeg = old.nextSeg
			}
		}
		m.nextSeg = max(m.nextSeg, highestSegment(ws)+1)
	}
	if m.nextSeg == 0 {
		m.nextSeg = 1
	}
	id := m.nextSeg
	m.nextSeg++
	seg, err := writeSegment(ws, id, sc.analyzed, m, persist)
	if err != nil {
		return nil, err
	}
	m.segments = []uint32{id}
	for _, e := range sc.binary {
		m.files[e.path] = e
	}
	ix := &index{m: m, segs: []*segment{seg}}
	if persist {
		if err := saveManifest(ws, m); err != nil {
			ix.close()
			return nil, err
		}
		up.Persisted = true
	}
	ix.prepare()
	return ix, nil
}

// highestSegment is the largest segment number among the files in the
// index directory.
func highestSegment(ws *workspace.Workspace) uint32 {
	ents, _ := os.ReadDir(ws.Store.Path(indexDir))
	var hi uint32
	for _, e := range ents {
		n := strings.TrimSuffix(strings.TrimPrefix(e.Name(), "seg-"), ".bm25")
		if v, err := strconv.ParseUint(n, 10, 32); err == nil && uint32(v) > hi {
			hi = uint32(v)
		}
	}
	return hi
}

// writeSegment encodes files as segment id, records them in the manifest,
// and stores it (or keeps it in memory when the index is not persisted).
func writeSegment(ws *workspace.Workspace, id uint32, files []analyzedFile, m *manifest, persist bool) (*segment, error) {
	sort.Slice(files, func(i, j int) bool { return files[i].entry.path < files[j].entry.path })
	for i := range files {
		e := files[i].entry
		e.seg, e.chunks = id, uint32(len(files[i].chunks))
		m.files[e.path] = &e
	}
	data := encodeSegment(files)
	if persist {
		p := indexPath(ws, segName(id))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return nil, err
		}
		if err := store.WriteFile(p, data, 0o644); err != nil {
			return nil, err
		}
		return loadSegment(ws, id)
	}
	s, err := openSegment(data)
	if err != nil {
		return nil, err
	}
	s.id = id
	return s, nil
}

func saveManifest(ws *workspace.Workspace, m *manifest) error {
	if err := store.WriteFile(indexPath(ws, manifestName), m.encode(), 0o644); err != nil {
		return err
	}
	// Segments the manifest no longer names go; a reader that mapped one
	// keeps its mapping.
	keep := map[string]bool{}
	for _, id := range m.segments {
		keep[segName(id)] = true
	}
	ents, _ := os.ReadDir(ws.Store.Path(indexDir))
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), "seg-") && !keep[e.Name()] {
			os.Remove(ws.Store.Path(indexDir, e.Name()))
		}
	}
	return nil
}

// refresh re-reads what changed since the manifest was written. It returns
// a reason instead of an index when rebuilding from scratch is better.
func refresh(ctx context.Context, ws *workspace.Workspace, m *manifest, segs []*segment, up *Update, persist bool, ch treewatch.Changes) (*index, string, error) {
	var delta uint32
	if len(m.segments) == 2 {
		delta = m.segments[1]
	}
	sc := newScan()
	up.Watched = !ch.Full && sc.changedOnly(ctx, ws, m, ch.Paths)
	if !up.Watched {
		sc = newScan()
		if err := sc.walk(ctx, ws, m.base, m); err != nil {
			for _, s := range segs {
				s.close()
			}
			return nil, "", err
		}
	}
	up.Skipped = sc.skipped
	// A new token is saved even when no file of the index changed, or the
	// next call would hear of the same paths again.
	changed := ch.Token != m.watch
	m.watch = ch.Token
	for rel, e := range sc.stats {
		m.files[rel] = e
		changed = true
	}
	for _, e := range sc.binary {
		// Known from now on by its stat; one that was indexed leaves the index.
		if old := m.files[e.path]; old != nil && old.seg != 0 {
			up.Removed++
		}
		m.files[e.path] = e
		changed = true
	}
	var fresh []analyzedFile // files that go into the new delta
	for _, af := range sc.analyzed {
		old := m.files[af.entry.path]
		switch {
		case old == nil || old.seg == 0:
			up.Added++
		case old.hash != af.entry.hash:
			up.Changed++
		}
		fresh = append(fresh, af)
	}
	for rel, e := range m.files {
		if !sc.kept[rel] && !sc.unchanged[e.slot].Load() {
			delete(m.files, rel)
			up.Removed++
		}
	}
	if up.Added+up.Changed+up.Removed > 0 {
		changed = true
	}
	baseFiles := segs[0].nFiles
	liveBase, inDelta := 0, 0
	for _, e := range m.files {
		switch {
		case e.seg == m.segments[0]:
			liveBase++
		case e.seg == delta && delta != 0:
			inDelta++
		}
	}
	if len(fresh)+inDelta > max(512, baseFiles/10) || baseFiles > 1000 && liveBase < baseFiles*7/10 {
		return &index{segs: segs}, fmt.Sprintf("%d files changed since the index was built", len(fresh)+baseFiles-liveBase), nil
	}
	ix := &index{m: m, segs: []*segment{segs[0]}}
	if !changed {
		ix.segs = segs
		ix.prepare()
		return ix, "", nil
	}
	m.builtAt = time.Now().UnixNano()
	if delta != 0 {
		fresh = sc.reread(ws, m, delta, fresh)
	}
	m.segments = m.segments[:1]
	if len(fresh) > 0 {
		id := m.nextSeg
		m.nextSeg++
		seg, err := writeSegment(ws, id, fresh, m, persist)
		if err != nil {
			ix.close()
			return nil, "", err
		}
		m.segments = append(m.segments, id)
		ix.segs = append(ix.segs, seg)
	}
	if len(segs) == 2 {
		segs[1].close()
	}
	if persist {
		if err := saveManifest(ws, m); err != nil {
			ix.close()
			return nil, "", err
		}
		up.Persisted = true
	}
	ix.prepare()
	return ix, "", nil
}

// reread analyzes again the files of the old delta that did not change,
// so the new delta holds them too. One that cannot be read any more is
// dropped from the manifest.
func (sc *scan) reread(ws *workspace.Workspace, m *manifest, delta uint32, fresh []analyzedFile) []analyzedFile {
	have := map[string]bool{}
	for _, af := range fresh {
		have[af.entry.path] = true
	}
	a := sc.analyzer()
	defer func() { sc.pool <- a }()
	for rel, e := range m.files {
		if e.seg != delta || have[rel] {
			continue
		}
		jp, err := ws.Jail.Resolve(rel, workspace.Read)
		var content []byte
		if err == nil {
			content, err = os.ReadFile(jp.Abs)
		}
		if err != nil {
			delete(m.files, rel)
			continue
		}
		fresh = append(fresh, a.file(*e, content))
	}
	return fresh
}

// prepare computes which files of each segment are live and the collection
// statistics BM25 needs.
func (ix *index) prepare() {
	var sums [nFields]uint64
	total := 0
	ix.live = make([][]bool, len(ix.segs))
	ix.nChunks = 0
	for i, s := range ix.segs {
		live := make([]bool, s.nFiles)
		for f := 0; f < s.nFiles; f++ {
			if e := ix.m.files[s.filePath(f)]; e != nil && e.seg == s.id {
				live[f] = true
				ix.nChunks += s.fileChunks(f)
			}
		}
		ix.live[i] = live
		for k := range sums {
			sums[k] += s.lenSums[k]
		}
		total += s.nChunks
	}
	for k := range sums {
		ix.lenAvg[k] = float64(sums[k]) / float64(max(total, 1))
		if ix.lenAvg[k] < 1 {
			ix.lenAvg[k] = 1
		}
	}
}

func sortedPaths(files map[string]*fileEntry) []string {
	out := make([]string, 0, len(files))
	for p := range files {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}
