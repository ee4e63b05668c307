package treewatch

import (
	"context"
	"encoding/json"
	"fmt"
	"path"
	"path/filepath"
	"sort"
	"sync"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/agentic-workspace/aw/engine/broker"
	"github.com/agentic-workspace/aw/engine/envelope"
	"github.com/agentic-workspace/aw/engine/inspect"
	"github.com/agentic-workspace/aw/engine/snapshot"
	"github.com/agentic-workspace/aw/engine/store"
	"github.com/agentic-workspace/aw/engine/workspace"
)

// maxJournal bounds the paths a watch remembers: past it, the watch starts
// again and callers walk once.
const maxJournal = 100_000

// pollEvery is how long the reader waits for events before it looks
// whether the watch was closed.
const pollEvery = 200 * time.Millisecond

// Service is the broker's "tree" service: one watch of the workspace.
type Service struct {
	mu sync.Mutex
	w  *watch
}

// NewService returns the service the broker hosts under "tree".
func NewService() *Service { return &Service{} }

// watch is one inotify instance over the tree and its journal.
type watch struct {
	ws          *workspace.Workspace // the settings it was set up under
	fingerprint string
	epoch       string
	started     time.Time
	ready       chan struct{} // closed when every directory is watched
	stop        chan struct{}
	done        chan struct{} // the reader has closed the instance

	mu      sync.Mutex
	fd      int
	dirs    map[int32]string // watch descriptor -> root-relative directory
	seq     uint64
	changed map[string]uint64 // path -> the sequence number of its last change
	broken  string            // why the journal cannot be trusted
	limited bool              // broken by a system limit: not retried at once
}

// Call implements broker.Service.
func (s *Service) Call(ctx context.Context, ws *workspace.Workspace, method string, params json.RawMessage) (any, error) {
	if method != "since" {
		return nil, envelope.Errorf(envelope.InvalidInput, "the tree service has no method %q", method)
	}
	var c sinceCall
	if err := json.Unmarshal(params, &c); err != nil {
		return nil, err
	}
	return s.since(ws, c.Token), nil
}

func (s *Service) since(ws *workspace.Workspace, token string) Changes {
	fp := fingerprint(ws)
	s.mu.Lock()
	w := s.w
	if w != nil && (w.fingerprint != fp || w.restartable()) {
		w.close()
		w = nil
	}
	if w == nil {
		w = start(ws, fp)
		s.w = w
	}
	s.mu.Unlock()
	select {
	case <-w.ready:
	default:
		return Changes{Full: true, Reason: "the watch of the tree is starting"}
	}
	w.mu.Lock()
	w.drain()
	if why := w.broken; why != "" {
		w.mu.Unlock()
		s.restart(ws, w, fp) // now, so it is ready the sooner
		return Changes{Full: true, Reason: why}
	}
	defer w.mu.Unlock()
	cur := tokenOf(w.epoch, w.seq)
	epoch, seq, ok := parseToken(token)
	switch {
	case token == "":
		return Changes{Token: cur, Full: true, Reason: "no earlier answer to start from"}
	case !ok || epoch != w.epoch:
		return Changes{Token: cur, Full: true, Reason: "the watch started again since that answer"}
	}
	out := Changes{Token: cur, Paths: []string{}}
	for p, q := range w.changed {
		if q > seq {
			out.Paths = append(out.Paths, p)
		}
	}
	sort.Strings(out.Paths)
	return out
}

// restart replaces the broken watch w, unless another call did, or a
// system limit broke it too recently.
func (s *Service) restart(ws *workspace.Workspace, w *watch, fp string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.w == w && w.restartable() {
		w.close()
		s.w = start(ws, fp)
	}
}

// start sets a watch on every directory a walk enters, in the background:
// a caller meanwhile walks as it would without one.
func start(ws *workspace.Workspace, fp string) *watch {
	w := &watch{ws: ws, fingerprint: fp, epoch: store.NewID("watch"), started: time.Now(),
		ready: make(chan struct{}), stop: make(chan struct{}), done: make(chan struct{}),
		fd: -1, dirs: map[int32]string{}, changed: map[string]uint64{}}
	go func() {
		defer close(w.done)
		fd, err := unix.InotifyInit1(unix.IN_CLOEXEC | unix.IN_NONBLOCK)
		if err != nil {
			w.mu.Lock()
			w.broken, w.limited = fmt.Sprintf("no inotify instance: %v (fs.inotify.max_user_instances)", err), true
			w.mu.Unlock()
			close(w.ready)
			return
		}
		defer unix.Close(fd)
		w.mu.Lock()
		w.fd = fd
		w.add(".", ws.Root)
		w.mu.Unlock()
		inspect.Dirs(context.Background(), ws, ".", func(rel, abs string) {
			w.mu.Lock()
			w.add(rel, abs)
			w.mu.Unlock()
		})
		close(w.ready)
		w.read()
	}()
	return w
}

// add watches the directory rel (at abs) before its entries are read
// (w.mu held).
func (w *watch) add(rel, abs string) {
	wd, err := unix.InotifyAddWatch(w.fd, abs, snapshot.WatchMask)
	if err != nil {
		if w.broken == "" {
			w.broken = fmt.Sprintf("%s could not be watched: %v (fs.inotify.max_user_watches)", rel, err)
			w.limited = true
		}
		return
	}
	w.dirs[int32(wd)] = rel
}

// read takes the events as they come until the watch is closed.
func (w *watch) read() {
	fds := []unix.PollFd{{Fd: int32(w.fd), Events: unix.POLLIN}}
	for {
		select {
		case <-w.stop:
			return
		default:
		}
		if n, _ := unix.Poll(fds, int(pollEvery/time.Millisecond)); n > 0 {
			w.mu.Lock()
			w.drain()
			w.mu.Unlock()
		}
	}
}

// drain reads every queued event into the journal (w.mu held). Every
// change made before the call is queued by then: the kernel queues an
// event before the system call that caused it returns.
func (w *watch) drain() {
	buf := make([]byte, 64<<10)
	for w.broken == "" {
		n, err := unix.Read(w.fd, buf)
		if err == unix.EINTR {
			continue
		}
		if err == unix.EAGAIN || n <= 0 {
			return
		}
		if err != nil {
			w.broken = fmt.Sprintf("reading the watch failed: %v", err)
			return
		}
		for off := 0; off+unix.SizeofInotifyEvent <= n; {
			ev := (*unix.InotifyEvent)(unsafe.Pointer(&buf[off]))
			name := buf[off+unix.SizeofInotifyEvent : off+unix.SizeofInotifyEvent+int(ev.Len)]
			off += unix.SizeofInotifyEvent + int(ev.Len)
			for len(name) > 0 && name[len(name)-1] == 0 {
				name = name[:len(name)-1]
			}
			w.event(ev.Wd, ev.Mask, string(name))
		}
	}
}

// event records one event.
func (w *watch) event(wd int32, m uint32, name string) {
	if m&unix.IN_Q_OVERFLOW != 0 {
		w.broken = "the kernel's queue of changes overflowed"
		return
	}
	dir, ok := w.dirs[wd]
	switch {
	case !ok:
		return // a watch already gone
	case m&unix.IN_IGNORED != 0:
		delete(w.dirs, wd)
		return
	case m&unix.IN_MOVE_SELF != 0:
		// Its descendants' watches would name it by its old path.
		w.broken = fmt.Sprintf("the watched directory %s moved", dir)
		return
	case m&unix.IN_DELETE_SELF != 0 || name == "":
		w.record(dir)
		return
	}
	rel := name
	if dir != "." {
		rel = dir + "/" + name
	}
	if name == ".gitignore" {
		w.broken = fmt.Sprintf("%s changed what a walk enters", rel)
		return
	}
	w.record(rel)
	if m&unix.IN_ISDIR != 0 && m&(unix.IN_CREATE|unix.IN_MOVED_TO) != 0 && inspect.Seen(w.ws, rel, true) {
		// A new directory: watched before its entries are read, and so is
		// every directory below it (they may have been made before the
		// watch was).
		// w.mu stays held: the walk's workers, serialised here, are the
		// only ones to touch the watch until it returns.
		w.add(rel, filepath.Join(w.ws.Root, filepath.FromSlash(rel)))
		var mu sync.Mutex
		inspect.Dirs(context.Background(), w.ws, rel, func(sub, abs string) {
			mu.Lock()
			defer mu.Unlock()
			w.add(sub, abs)
			w.record(sub)
		})
	}
}

// record notes that rel changed (w.mu held).
func (w *watch) record(rel string) {
	w.seq++
	w.changed[path.Clean(rel)] = w.seq
	if len(w.changed) > maxJournal {
		w.broken = fmt.Sprintf("more than %d paths changed", maxJournal)
	}
}

// restartable says the watch should start again: its journal broke (an
// overflow, a .gitignore), or a system limit broke it long enough ago to
// try again (a tree over the limit would otherwise be walked by the broker
// on every call, for nothing).
func (w *watch) restartable() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.broken != "" && (!w.limited || time.Since(w.started) > retryLimited)
}

// retryLimited is how long a watch a system limit broke stays broken.
const retryLimited = time.Minute

// close ends the watch; its reader closes the instance.
func (w *watch) close() {
	close(w.stop)
	<-w.done
}

// Held implements broker.Service.
func (s *Service) Held() []broker.Held {
	s.mu.Lock()
	w := s.w
	s.mu.Unlock()
	if w == nil {
		return nil
	}
	h := broker.Held{Kind: "inotify", Key: ".", State: "starting", AgeSeconds: int64(time.Since(w.started).Seconds())}
	select {
	case <-w.ready:
		h.State = "ready"
	default:
	}
	w.mu.Lock()
	h.Detail = fmt.Sprintf("%d directories watched, %d paths changed since it started", len(w.dirs), len(w.changed))
	if w.broken != "" {
		h.State, h.Detail = "failed", w.broken
	}
	w.mu.Unlock()
	return []broker.Held{h}
}

// Close implements broker.Service.
func (s *Service) Close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.w != nil {
		s.w.close()
		s.w = nil
	}
}
