package inspect

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sync"

	"github.com/agentic-workspace/aw/engine/workspace"
)

// A walk visits everything under a base directory in parallel, the way the
// searches need it: denyPaths always hidden, list.ignore (relative to the
// base, so naming an ignored directory still works) and .gitignore files at
// every level honoured, symlinks reported but never followed.
type walk struct {
	ws       *workspace.Workspace
	base     workspace.Path
	ignore   *workspace.Patterns // list.ignore and the caller's, base-relative
	skipDir  func(rel string) bool
	visit    func(wk *walker, e entry) // files, symlinks and others; called concurrently
	visitDir func(wk *walker, e entry) // directories (after the filters), may be nil
	workers  int
	rooted   bool // the base is the root: base-relative paths are root-relative
	// rootIgnore matches list.ignore against root-relative paths, as a walk
	// of the whole tree would, when the base is a directory below the root.
	rootIgnore bool
}

// walkIgnore is what searches hide below their base: list.ignore, and the
// state directory, whose artifacts would otherwise echo earlier results
// back into every later search. Naming .agentic as the base still works.
func walkIgnore(ws *workspace.Workspace) *workspace.Patterns {
	return workspace.NewPatterns(ws.Settings.List.Ignore, []string{"/" + workspace.StateDir})
}

// entry is one thing found by a walk.
type entry struct {
	parent string // the absolute directory it is in
	rel    string // root-relative, slash-separated
	name   string
	typ    fs.FileMode // fs.ModeDir, fs.ModeSymlink, 0 (regular) or another type bit
	dir    *os.File    // the open parent directory, valid during the visit only
}

// abs is the entry's absolute path, built when a visit needs it: a
// snapshot scan stats relative to dir and needs it for few entries.
func (e *entry) abs() string { return e.parent + string(filepath.Separator) + e.name }

// fileEntry is the entry of one named file, looked at without a walk.
func fileEntry(p workspace.Path) entry {
	return entry{parent: filepath.Dir(p.Abs), name: filepath.Base(p.Abs), rel: p.Rel}
}

type dirJob struct {
	abs   string
	rel   string
	brel  string   // base-relative
	comps []string // root-relative components
	rules *ignoreRules
}

// walker is one worker's state; visit callbacks may keep buffers in it.
type walker struct {
	n   int // the worker's index, from 0
	buf []byte
	out any
}

func (w *walk) run(ctx context.Context, newOut func() any) []any {
	if w.workers <= 0 {
		w.workers = runtime.GOMAXPROCS(0)
	}
	comps := splitRel(w.base.Rel)
	w.rooted = len(comps) == 0 || w.rootIgnore
	var rules *ignoreRules
	if !w.base.Outside {
		rules = ancestorRules(w.ws.Root, comps)
	}
	q := &jobQueue{}
	// Only an allowPaths root can be denied here (the jail refuses the rest),
	// and then so is everything below it: dir tests each child's name alone.
	if !w.ws.Jail.Denied(w.base.Rel) {
		q.jobs = []dirJob{{abs: w.base.Abs, rel: w.base.Rel, comps: comps, rules: rules}}
	}
	q.cond = sync.NewCond(&q.mu)
	outs := make([]any, w.workers)
	var wg sync.WaitGroup
	for i := 0; i < w.workers; i++ {
		wk := &walker{n: i}
		if newOut != nil {
			wk.out = newOut()
		}
		outs[i] = wk.out
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				job, ok := q.pop()
				if !ok {
					return
				}
				if ctx.Err() == nil {
					w.dir(wk, q, job)
				}
				q.finish()
			}
		}()
	}
	wg.Wait()
	return outs
}

func (w *walk) dir(wk *walker, q *jobQueue, job dirJob) {
	f, err := openDir(job.abs)
	if err != nil {
		return
	}
	// The directory stays open while its entries are visited: a visit may
	// stat relative to it, sparing the kernel a walk of the whole path.
	defer f.Close()
	ents, _ := f.ReadDir(-1)
	rules := job.rules
	if !w.base.Outside {
		for _, e := range ents {
			if e.Name() == ".gitignore" && e.Type().IsRegular() {
				if raw, err := os.ReadFile(filepath.Join(job.abs, ".gitignore")); err == nil {
					rules = rules.with(raw, job.comps)
				}
				break
			}
		}
	}
	// The components of a child, its name last: one slice for the
	// directory, copied only for a subdirectory, which keeps its own.
	comps := append(job.comps[:len(job.comps):len(job.comps)], "")
	for _, e := range ents {
		name := e.Name()
		rel := join(job.rel, name)
		// The directory itself passed these checks, so only the child's own
		// name can match.
		if w.ws.Jail.DeniedBelow(rel) {
			continue
		}
		brel := rel
		if !w.rooted {
			brel = join(job.brel, name)
		}
		if w.ignore.MatchBelow(brel) {
			continue
		}
		typ := e.Type()
		isDir := typ.IsDir()
		comps[len(comps)-1] = name
		if rules != nil && rules.ignored(comps, isDir) {
			continue
		}
		ent := entry{parent: job.abs, rel: rel, name: name, typ: typ & fs.ModeType, dir: f}
		if isDir {
			if w.skipDir != nil && w.skipDir(rel) {
				continue
			}
			if w.visitDir != nil {
				w.visitDir(wk, ent)
			}
			q.push(dirJob{abs: ent.abs(), rel: rel, brel: brel, comps: slices.Clone(comps), rules: rules})
			continue
		}
		w.visit(wk, ent)
	}
}

// jobQueue is a LIFO of directories shared by the workers; it is done when
// it is empty and no worker is inside a directory (which could push more).
type jobQueue struct {
	mu     sync.Mutex
	cond   *sync.Cond
	jobs   []dirJob
	active int
}

func (q *jobQueue) push(j dirJob) {
	q.mu.Lock()
	q.jobs = append(q.jobs, j)
	q.mu.Unlock()
	q.cond.Signal()
}

func (q *jobQueue) pop() (dirJob, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for len(q.jobs) == 0 {
		if q.active == 0 {
			q.cond.Broadcast()
			return dirJob{}, false
		}
		q.cond.Wait()
	}
	j := q.jobs[len(q.jobs)-1]
	q.jobs = q.jobs[:len(q.jobs)-1]
	q.active++
	return j, true
}

func (q *jobQueue) finish() {
	q.mu.Lock()
	q.active--
	if q.active == 0 && len(q.jobs) == 0 {
		q.cond.Broadcast()
	}
	q.mu.Unlock()
}
