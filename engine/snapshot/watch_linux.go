package snapshot

import (
	"sync"
	"unsafe"

	"golang.org/x/sys/unix"
)

// WatchMask is every change to a directory's entries that a process can
// make through the file system: written, truncated, chmod, created,
// removed, renamed in or out, and the directory itself removed or moved.
// The broker's watch of the tree (engine/treewatch) asks for the same.
const WatchMask = unix.IN_MODIFY | unix.IN_ATTRIB | unix.IN_CLOSE_WRITE | unix.IN_CREATE | unix.IN_DELETE |
	unix.IN_MOVED_FROM | unix.IN_MOVED_TO | unix.IN_DELETE_SELF | unix.IN_MOVE_SELF |
	unix.IN_ONLYDIR | unix.IN_DONT_FOLLOW | unix.IN_EXCL_UNLINK

// watcher is an inotify instance with a watch on every directory the scan
// before a job saw.
type watcher struct {
	fd     int
	mu     sync.Mutex
	dirs   map[int32]string // watch descriptor -> root-relative directory
	failed bool             // a watch could not be added: the record is incomplete
}

func newWatcher() *watcher {
	fd, err := unix.InotifyInit1(unix.IN_CLOEXEC | unix.IN_NONBLOCK)
	if err != nil {
		return nil // no instance left (fs.inotify.max_user_instances): a full scan after the job
	}
	return &watcher{fd: fd, dirs: map[int32]string{}}
}

// add watches the directory rel (at abs) before its entries are read, so a
// change is either seen by the scan or queued as an event.
func (w *watcher) add(rel, abs string) {
	wd, err := unix.InotifyAddWatch(w.fd, abs, WatchMask)
	w.mu.Lock()
	if err != nil {
		w.failed = true
	} else {
		w.dirs[int32(wd)] = rel
	}
	w.mu.Unlock()
}

// close releases the watches. The kernel waits for a grace period to free
// them (about 10 ms whatever their number), so it does that while the
// job's record is written.
func (w *watcher) close() { go unix.Close(w.fd) }

// changed reads the queued events: the root-relative paths that may have
// changed since their directory was watched, and false when the events
// cannot be trusted to be all of them (a watch failed, the queue
// overflowed, a watched directory went away).
func (w *watcher) changed() (map[string]bool, bool) {
	if w.failed {
		return nil, false
	}
	paths := map[string]bool{}
	buf := make([]byte, 64<<10)
	for {
		n, err := unix.Read(w.fd, buf)
		if err == unix.EINTR {
			continue
		}
		if err == unix.EAGAIN {
			return paths, true
		}
		if err != nil || n <= 0 {
			return nil, false
		}
		for off := 0; off+unix.SizeofInotifyEvent <= n; {
			ev := (*unix.InotifyEvent)(unsafe.Pointer(&buf[off]))
			name := buf[off+unix.SizeofInotifyEvent : off+unix.SizeofInotifyEvent+int(ev.Len)]
			off += unix.SizeofInotifyEvent + int(ev.Len)
			if ev.Mask&(unix.IN_Q_OVERFLOW|unix.IN_DELETE_SELF|unix.IN_MOVE_SELF|unix.IN_IGNORED) != 0 {
				return nil, false
			}
			dir, ok := w.dirs[ev.Wd]
			if !ok {
				return nil, false
			}
			for len(name) > 0 && name[len(name)-1] == 0 {
				name = name[:len(name)-1]
			}
			if len(name) == 0 {
				continue // the directory's own attributes
			}
			if dir == "." {
				paths[string(name)] = true
			} else {
				paths[dir+"/"+string(name)] = true
			}
		}
	}
}
