package vcs

import (
	"crypto/sha1"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// scan compares HEAD, the index and the worktree the way `git status`
// does, without go-git's Worktree.Status: the index's stat data decides
// which files need hashing, the cache-tree skips unchanged directories of
// HEAD, and the walk for untracked files never descends into an ignored
// directory.
type scan struct {
	rp  *repo
	idx *indexFile
	// filters are repository paths; empty means everything.
	filters []string
	// untracked and ignored say whether to look for those files at all.
	untracked, ignored bool

	wt       []byte          // per index entry: 0 clean, 'M', 'D', 'T'
	wtHash   []plumbing.Hash // per index entry: the worktree blob hash when it was computed
	visited  []bool
	tracked  map[string]int32 // stage-0 path -> entry position (first stage for unmerged)
	byDir    map[string][]int32
	dirs     map[string]bool // directories with tracked files below them
	mu       sync.Mutex
	untrackd []string
	ignord   []string
	hashq    []int32 // entries whose stat changed: hash them
	racyS    uint32
	racyN    uint32
}

// change is one path's state in porcelain v1 letters.
type change struct {
	path, orig string
	x, y       byte
}

func newScan(rp *repo, idx *indexFile, filters []string, untracked, ignored bool) *scan {
	n := len(idx.entries)
	s := &scan{rp: rp, idx: idx, filters: filters, untracked: untracked, ignored: ignored,
		wt: make([]byte, n), wtHash: make([]plumbing.Hash, n), visited: make([]bool, n),
		tracked: make(map[string]int32, n), byDir: map[string][]int32{}, dirs: map[string]bool{"": true}}
	s.racyS = uint32(idx.mtime.Unix())
	s.racyN = uint32(idx.mtime.Nanosecond())
	lastDir := "\x00"
	var cur []int32
	flush := func() {
		if lastDir != "\x00" {
			s.byDir[lastDir] = cur
		}
	}
	for i := range idx.entries {
		e := &idx.entries[i]
		if _, dup := s.tracked[e.name]; !dup {
			s.tracked[e.name] = int32(i)
		}
		dir := ""
		if k := strings.LastIndexByte(e.name, '/'); k >= 0 {
			dir = e.name[:k]
		}
		if dir != lastDir {
			flush()
			lastDir = dir
			cur = s.byDir[dir]
			for d := dir; d != "" && !s.dirs[d]; {
				s.dirs[d] = true
				if k := strings.LastIndexByte(d, '/'); k >= 0 {
					d = d[:k]
				} else {
					d = ""
				}
			}
		}
		cur = append(cur, int32(i))
	}
	flush()
	return s
}

// relevant reports whether a directory (or file) is on the way to, or
// inside, one of the filters.
func (s *scan) relevant(p string) bool {
	if len(s.filters) == 0 || p == "" {
		return true
	}
	for _, f := range s.filters {
		if f == "" || f == p || strings.HasPrefix(p, f+"/") || strings.HasPrefix(f, p+"/") {
			return true
		}
	}
	return false
}

// inside reports whether p is selected by the filters.
func (s *scan) inside(p string) bool {
	if len(s.filters) == 0 {
		return true
	}
	for _, f := range s.filters {
		if f == "" || f == p || strings.HasPrefix(p, f+"/") {
			return true
		}
	}
	return false
}

type dirJob struct {
	dir     string // repository path, "" for the top
	level   *ignoreLevel
	tracked bool // has tracked files below it
	ignored bool // inside an ignored directory (walked only for --ignored)
}

// worktree fills wt for every index entry and collects untracked (and,
// when asked, ignored) files.
func (s *scan) worktree(base *ignoreLevel) error {
	q := &dirQueue{}
	q.cond = sync.NewCond(&q.mu)
	q.push(dirJob{dir: "", level: base, tracked: true})
	workers := runtime.GOMAXPROCS(0) * 3
	if workers < 4 {
		workers = 4
	}
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				j, ok := q.pop()
				if !ok {
					return
				}
				s.walkDir(j, q.push)
				q.done()
			}
		}()
	}
	wg.Wait()
	// Entries whose directory the walk did not reach (deleted, ignored,
	// outside the filters): stat them by path.
	var rest []int32
	for i := range s.idx.entries {
		if !s.visited[i] && s.inside(s.idx.entries[i].name) {
			rest = append(rest, int32(i))
		}
	}
	parallel(len(rest), func(k int) {
		i := rest[k]
		st, err := statPath(filepath.Join(s.rp.top, s.idx.entries[i].name))
		s.compare(i, &st, err)
	})
	// Hash the files whose stat did not match the index.
	parallel(len(s.hashq), func(k int) {
		i := s.hashq[k]
		e := &s.idx.entries[i]
		h, err := hashFile(filepath.Join(s.rp.top, e.name), e.mode == modeSymlink)
		switch {
		case err != nil:
			s.wt[i] = 'D'
		case h != e.hash:
			s.wt[i] = 'M'
			s.wtHash[i] = h
		default:
			s.wt[i] = 0
			s.wtHash[i] = h
		}
	})
	sort.Strings(s.untrackd)
	sort.Strings(s.ignord)
	return nil
}

// dirQueue is the walk's unbounded work list; it is finished when empty
// with no directory in progress.
type dirQueue struct {
	mu     sync.Mutex
	cond   *sync.Cond
	jobs   []dirJob
	active int
}

func (q *dirQueue) push(j dirJob) {
	q.mu.Lock()
	q.jobs = append(q.jobs, j)
	q.active++
	q.mu.Unlock()
	q.cond.Signal()
}

func (q *dirQueue) pop() (dirJob, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for len(q.jobs) == 0 {
		if q.active == 0 {
			return dirJob{}, false
		}
		q.cond.Wait()
	}
	j := q.jobs[len(q.jobs)-1]
	q.jobs = q.jobs[:len(q.jobs)-1]
	return j, true
}

func (q *dirQueue) done() {
	q.mu.Lock()
	q.active--
	end := q.active == 0
	q.mu.Unlock()
	if end {
		q.cond.Broadcast()
	}
}

// walkDir reads one directory: its tracked entries are compared by stat
// (relative to the open directory), the rest are untracked or ignored.
func (s *scan) walkDir(j dirJob, submit func(dirJob)) {
	abs := s.rp.top
	if j.dir != "" {
		abs = filepath.Join(s.rp.top, j.dir)
	}
	f, err := os.Open(abs)
	if err != nil {
		return // vanished or unreadable: its tracked entries are stat'ed by path later
	}
	defer f.Close()
	ents, err := f.ReadDir(-1)
	if err != nil {
		return
	}
	var comps []string
	if j.dir != "" {
		comps = strings.Split(j.dir, "/")
	}
	level := j.level
	for _, de := range ents {
		if de.Name() == ".gitignore" && !de.IsDir() {
			level = level.child(filepath.Join(abs, ".gitignore"), comps)
			break
		}
	}
	prefix := ""
	if j.dir != "" {
		prefix = j.dir + "/"
	}
	names := map[string]int32{}
	if j.tracked {
		for _, i := range s.byDir[j.dir] {
			e := &s.idx.entries[i]
			base := e.name[len(prefix):]
			names[base] = i
			if !s.inside(e.name) {
				continue
			}
			s.visited[i] = true
			st, err := statAt(f, abs, base)
			s.compare(i, &st, err)
		}
	}
	path := append(comps, "")
	var untracked, ignored []string
	for _, de := range ents {
		name := de.Name()
		if name == ".git" {
			continue
		}
		full := prefix + name
		typ := de.Type()
		if i, ok := names[name]; ok {
			e := &s.idx.entries[i]
			if !(typ.IsDir() && e.mode != modeGitlink) {
				continue
			}
			// A tracked file replaced by a directory: its contents are new.
		}
		if !s.relevant(full) {
			continue
		}
		isDir := typ.IsDir()
		if typ&(os.ModeSocket|os.ModeNamedPipe|os.ModeDevice|os.ModeCharDevice|os.ModeIrregular) != 0 {
			continue
		}
		path[len(path)-1] = name
		if isDir {
			trackedBelow := j.tracked && s.dirs[full]
			if !s.untracked && !trackedBelow {
				continue
			}
			ign := j.ignored || level.ignored(path, true)
			if ign && !s.ignored {
				continue // pruned: tracked files below are stat'ed by path
			}
			if !ign && !trackedBelow {
				if _, err := os.Lstat(filepath.Join(abs, name, ".git")); err == nil {
					untracked = append(untracked, full+"/") // a nested repository
					continue
				}
			}
			submit(dirJob{dir: full, level: level, tracked: trackedBelow, ignored: ign})
			continue
		}
		if !s.untracked || !s.inside(full) {
			continue
		}
		if j.ignored || level.ignored(path, false) {
			if s.ignored {
				ignored = append(ignored, full)
			}
			continue
		}
		untracked = append(untracked, full)
	}
	if len(untracked) > 0 || len(ignored) > 0 {
		s.mu.Lock()
		s.untrackd = append(s.untrackd, untracked...)
		s.ignord = append(s.ignord, ignored...)
		s.mu.Unlock()
	}
}

// compare decides an entry's worktree state from its lstat; files whose
// stat does not settle it are queued for hashing.
func (s *scan) compare(i int32, st *fileStat, err error) {
	e := &s.idx.entries[i]
	if e.stage != 0 || e.skipWorktree || e.assumeUnchanged {
		return
	}
	if err != nil {
		s.wt[i] = 'D'
		return
	}
	switch e.mode {
	case modeGitlink:
		if st.kind != kindDir {
			s.wt[i] = 'T'
			return
		}
		if h, ok := submoduleHead(filepath.Join(s.rp.top, e.name)); ok && h != e.hash {
			s.wt[i] = 'M'
		}
		return
	case modeSymlink:
		if st.kind != kindLink {
			if st.kind == kindDir {
				s.wt[i] = 'D'
			} else {
				s.wt[i] = 'T'
			}
			return
		}
	default:
		if st.kind == kindDir {
			s.wt[i] = 'D'
			return
		}
		if st.kind != kindFile {
			s.wt[i] = 'T'
			return
		}
		if st.exec != (e.mode == modeExec) {
			s.wt[i] = 'M'
			return
		}
	}
	if uint32(st.size) != e.size {
		s.wt[i] = 'M'
		s.mu.Lock()
		s.hashq = append(s.hashq, i) // for diff's index line; a size change is already M
		s.mu.Unlock()
		return
	}
	racy := st.mtimeS > s.racyS || (st.mtimeS == s.racyS && st.mtimeN >= s.racyN)
	if st.mtimeS == e.mtimeS && st.mtimeN == e.mtimeN && (st.ino == 0 || st.ino == e.ino) && !racy {
		return
	}
	s.mu.Lock()
	s.hashq = append(s.hashq, i)
	s.mu.Unlock()
}

// fileStat is the part of lstat the comparison needs.
type fileStat struct {
	kind           uint8
	exec           bool
	size           int64
	mtimeS, mtimeN uint32
	ino            uint32
}

const (
	kindOther uint8 = iota
	kindFile
	kindDir
	kindLink
)

// parallel runs fn(0..n-1) on the CPUs.
func parallel(n int, fn func(int)) {
	if n == 0 {
		return
	}
	workers := runtime.GOMAXPROCS(0) * 2
	if n < 64 || workers < 2 {
		for i := 0; i < n; i++ {
			fn(i)
		}
		return
	}
	var next int64
	var mu sync.Mutex
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				i := next
				next += 32
				mu.Unlock()
				if int(i) >= n {
					return
				}
				for k := int(i); k < n && k < int(i)+32; k++ {
					fn(k)
				}
			}
		}()
	}
	wg.Wait()
}

// hashFile returns the git blob hash of a file (of a symlink's target text
// when link is true).
func hashFile(path string, link bool) (plumbing.Hash, error) {
	if link {
		t, err := os.Readlink(path)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		return blobHash([]byte(t)), nil
	}
	f, err := os.Open(path)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return plumbing.ZeroHash, err
	}
	h := sha1.New()
	h.Write([]byte("blob " + strconv.FormatInt(fi.Size(), 10) + "\x00"))
	n, err := io.Copy(h, f)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	if n != fi.Size() {
		return plumbing.ZeroHash, errors.New("the file changed while it was read")
	}
	var out plumbing.Hash
	copy(out[:], h.Sum(nil))
	return out, nil
}

func blobHash(b []byte) plumbing.Hash {
	h := sha1.New()
	h.Write([]byte("blob " + strconv.Itoa(len(b)) + "\x00"))
	h.Write(b)
	var out plumbing.Hash
	copy(out[:], h.Sum(nil))
	return out
}

// submoduleHead reads the commit a submodule's worktree has checked out.
func submoduleHead(dir string) (plumbing.Hash, bool) {
	gitDir := filepath.Join(dir, ".git")
	if raw, err := os.ReadFile(gitDir); err == nil {
		d, ok := strings.CutPrefix(strings.TrimSpace(string(raw)), "gitdir:")
		if !ok {
			return plumbing.ZeroHash, false
		}
		d = strings.TrimSpace(d)
		if !filepath.IsAbs(d) {
			d = filepath.Join(dir, d)
		}
		gitDir = d
	}
	for range 5 {
		raw, err := os.ReadFile(filepath.Join(gitDir, "HEAD"))
		if err != nil {
			return plumbing.ZeroHash, false
		}
		line := strings.TrimSpace(string(raw))
		ref, ok := strings.CutPrefix(line, "ref: ")
		if !ok {
			return plumbing.NewHash(line), true
		}
		if raw, err := os.ReadFile(filepath.Join(gitDir, filepath.FromSlash(ref))); err == nil {
			return plumbing.NewHash(strings.TrimSpace(string(raw))), true
		}
		// A packed ref.
		if raw, err := os.ReadFile(filepath.Join(gitDir, "packed-refs")); err == nil {
			for _, l := range strings.Split(string(raw), "\n") {
				if h, name, ok := strings.Cut(l, " "); ok && name == ref {
					return plumbing.NewHash(h), true
				}
			}
		}
		return plumbing.ZeroHash, false
	}
	return plumbing.ZeroHash, false
}

// staged compares HEAD's tree with the index (stage 0). Directories whose
// cache-tree hash equals HEAD's tree are skipped without reading them.
func (s *scan) staged(headTree plumbing.Hash) ([]change, error) {
	var out []change
	err := s.cmpTree(headTree, "", 0, len(s.idx.entries), &out)
	return out, err
}

func (s *scan) cmpTree(th plumbing.Hash, dir string, lo, hi int, out *[]change) error {
	if !s.relevant(dir) {
		return nil
	}
	if !th.IsZero() {
		if h, ok := s.idx.trees[dir]; ok && h == th {
			return nil
		}
	}
	tmap := map[string]object.TreeEntry{}
	if !th.IsZero() {
		entries, err := s.rp.tree(th)
		if err != nil {
			return err
		}
		for _, te := range entries {
			tmap[te.Name] = te
		}
	}
	prefix := ""
	if dir != "" {
		prefix = dir + "/"
	}
	seen := map[string]bool{}
	for i := lo; i < hi; {
		e := &s.idx.entries[i]
		rest := e.name[len(prefix):]
		if k := strings.IndexByte(rest, '/'); k >= 0 {
			name := rest[:k]
			sub := prefix + name
			j := i
			for j < hi && strings.HasPrefix(s.idx.entries[j].name, sub+"/") {
				j++
			}
			var child plumbing.Hash
			if te, ok := tmap[name]; ok && te.Mode == modeDir {
				child = te.Hash
				seen[name] = true
			}
			if err := s.cmpTree(child, sub, i, j, out); err != nil {
				return err
			}
			i = j
			continue
		}
		i++
		if e.stage != 0 {
			seen[rest] = true
			for i < hi && s.idx.entries[i].name == e.name {
				i++
			}
			continue
		}
		if e.intentToAdd {
			continue
		}
		if !s.inside(e.name) {
			if te, ok := tmap[rest]; ok && te.Mode != modeDir {
				seen[rest] = true
			}
			continue
		}
		te, ok := tmap[rest]
		if ok && te.Mode != modeDir {
			seen[rest] = true
			switch {
			case te.Hash == e.hash && uint32(te.Mode) == e.mode:
			case typeOf(uint32(te.Mode)) != typeOf(e.mode):
				*out = append(*out, change{path: e.name, x: 'T'})
			default:
				*out = append(*out, change{path: e.name, x: 'M'})
			}
			continue
		}
		*out = append(*out, change{path: e.name, x: 'A'})
	}
	for name, te := range tmap {
		if seen[name] {
			continue
		}
		full := prefix + name
		if te.Mode == modeDir {
			if err := s.allFiles(te.Hash, full, func(p string) {
				if s.inside(p) {
					*out = append(*out, change{path: p, x: 'D'})
				}
			}); err != nil {
				return err
			}
			continue
		}
		if s.inside(full) {
			*out = append(*out, change{path: full, x: 'D'})
		}
	}
	return nil
}

// allFiles calls fn for every file below a tree.
func (s *scan) allFiles(th plumbing.Hash, dir string, fn func(string)) error {
	entries, err := s.rp.tree(th)
	if err != nil {
		return err
	}
	for _, te := range entries {
		p := dir + "/" + te.Name
		if te.Mode == modeDir {
			if err := s.allFiles(te.Hash, p, fn); err != nil {
				return err
			}
			continue
		}
		fn(p)
	}
	return nil
}

func typeOf(mode uint32) uint32 {
	switch mode {
	case modeFile, modeExec:
		return modeFile
	}
	return mode
}

// treeEntry finds the tree entry at path below a tree (dirs too).
func treeEntry(rp *repo, th plumbing.Hash, path string) (object.TreeEntry, bool) {
	if path == "" {
		return object.TreeEntry{Hash: th, Mode: modeDir}, !th.IsZero()
	}
	for {
		if th.IsZero() {
			return object.TreeEntry{}, false
		}
		name, rest, more := strings.Cut(path, "/")
		mode, h, found, err := rp.treeLookup(th, name)
		if err != nil || !found {
			return object.TreeEntry{}, false
		}
		if !more {
			return object.TreeEntry{Name: name, Mode: filemode.FileMode(mode), Hash: h}, true
		}
		if mode != modeDir {
			return object.TreeEntry{}, false
		}
		th, path = h, rest
	}
}
