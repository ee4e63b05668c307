package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// bwrapArgv is the bubblewrap command line of a policy. Mounts apply in
// order, each over the ones before: the whole file system read-only, fresh
// /dev, /proc, /tmp and /run, an empty home, then what is made available
// again (tools on PATH under the home, the caches, the workspace), then
// the read-only carve-outs inside the workspace, the hidden paths, and
// last the process's own writable directories.
func bwrapArgv(bwrap string, p *Policy, argv []string) []string {
	a := []string{bwrap}
	if !p.Detached {
		a = append(a,
			"--die-with-parent", // the sandbox dies with the supervisor
			"--new-session",     // no terminal to push keystrokes into (TIOCSTI)
		)
	}
	a = append(a,
		"--unshare-pid", // with its PID 1 every process in it dies, setsid or not
		"--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try",
		"--cap-drop", "ALL",
	)
	if !p.Network {
		a = append(a, "--unshare-net") // abstract unix sockets are per network namespace: cut too
	}
	a = append(a, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp")
	if isDir("/var/tmp") {
		a = append(a, "--tmpfs", "/var/tmp")
	}
	// /run holds the host's service sockets (D-Bus, the container
	// runtime's, databases'): a read-only mount does not stop connect(2)
	// on a unix socket, so it is replaced whole; only the resolver
	// configuration some systems keep there comes back.
	if isDir("/run") {
		a = append(a, "--tmpfs", "/run")
		if rc, err := filepath.EvalSymlinks("/etc/resolv.conf"); err == nil && within("/run", rc) {
			a = append(a, "--ro-bind", rc, rc)
		}
	}
	if p.replacesHome() {
		a = append(a, "--perms", "0700", "--tmpfs", p.Home)
	}
	for _, d := range p.PathDirs {
		a = append(a, "--ro-bind", d, d)
	}
	for _, c := range p.Caches {
		if c.Writable {
			a = append(a, "--bind", c.Path, c.Path)
		} else {
			a = append(a, "--ro-bind", c.Path, c.Path)
		}
	}
	switch p.Workspace {
	case ReadWrite:
		a = append(a, "--bind", p.Root, p.Root)
		// Every directory that holds a carve-out becomes a mount point of
		// its own: a mount point cannot be renamed, so `mv sub elsewhere`
		// cannot move a denied or protected file out from under the name
		// that matches it (for the next command, or aw's own tools).
		for _, d := range p.holders() {
			a = append(a, "--bind", d, d)
		}
	case ReadOnly:
		a = append(a, "--ro-bind", p.Root, p.Root) // again, over an empty home or /tmp
	case Invisible:
		a = append(a, "--perms", "0700", "--tmpfs", p.Root)
	}
	for _, r := range p.ReadOnly {
		a = append(a, "--ro-bind", r, r)
	}
	for _, h := range p.Hidden {
		if p.Workspace == Invisible && within(p.Root, h) {
			continue
		}
		if isDir(h) {
			a = append(a, "--perms", "0000", "--tmpfs", h)
		} else {
			a = append(a, "--ro-bind", p.placeholder(), h)
		}
	}
	for _, s := range hostSockets(p) {
		a = append(a, "--ro-bind", p.placeholder(), s)
	}
	for _, w := range p.Writable {
		a = append(a, "--bind", w, w)
	}
	for _, kv := range p.cacheEnv() {
		k, v := splitEnv(kv)
		a = append(a, "--setenv", k, v)
	}
	cwd := p.Cwd
	if cwd == "" {
		cwd = p.Root
	}
	a = append(a, "--chdir", cwd, "--")
	return append(a, argv...)
}

// holders are the directories strictly between the root and each
// read-only or hidden path, parents before children.
func (p *Policy) holders() []string {
	seen := map[string]bool{}
	for _, c := range append(append([]string(nil), p.ReadOnly...), p.Hidden...) {
		if !within(p.Root, c) {
			continue
		}
		for d := filepath.Dir(c); d != p.Root && within(p.Root, d) && !seen[d]; d = filepath.Dir(d) {
			seen[d] = true
		}
	}
	out := make([]string, 0, len(seen))
	for d := range seen {
		out = append(out, d)
	}
	slices.Sort(out) // a parent sorts before its children
	return out
}

// maxSockets bounds the host sockets hidden one by one.
const maxSockets = 256

// hostSockets are the named unix sockets this machine listens on that the
// sandbox would otherwise leave reachable (read-only mounts do not stop a
// connect): those outside /tmp, /var/tmp and /run (replaced whole), the
// home (replaced) and a workspace the process may write (its own). They
// are read from /proc/net/unix, one file, rather than found by a walk.
func hostSockets(p *Policy) []string {
	raw, err := os.ReadFile("/proc/net/unix")
	if err != nil {
		return nil
	}
	var out []string
	seen := map[string]bool{}
	for _, line := range strings.Split(string(raw), "\n")[1:] {
		f := strings.Fields(line)
		if len(f) < 8 || !strings.HasPrefix(f[7], "/") || seen[f[7]] {
			continue // no path, or an abstract socket (@name): the network namespace decides those
		}
		path := f[7]
		seen[path] = true
		switch {
		case within("/tmp", path), within("/var/tmp", path), within("/run", path), within("/var/run", path):
			continue
		case p.replacesHome() && within(p.Home, path):
			continue
		case p.Workspace == ReadWrite && within(p.Root, path):
			continue
		}
		if fi, err := os.Lstat(path); err != nil || fi.Mode()&os.ModeSocket == 0 {
			continue
		}
		if out = append(out, path); len(out) == maxSockets {
			break
		}
	}
	return out
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

func splitEnv(kv string) (string, string) {
	for i := 0; i < len(kv); i++ {
		if kv[i] == '=' {
			return kv[:i], kv[i+1:]
		}
	}
	return kv, ""
}

// lookBwrap finds bwrap on aw's PATH, skipping relative entries and any
// inside dir (the workspace): a command the sandbox let write the
// workspace must not be able to plant the "sandbox" of the next one.
func lookBwrap(path, dir string) string {
	for _, d := range filepath.SplitList(path) {
		if d == "" || !filepath.IsAbs(d) {
			continue
		}
		if real, err := filepath.EvalSymlinks(d); err != nil || (dir != "" && within(dir, real)) {
			continue
		}
		p := filepath.Join(d, "bwrap")
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0 {
			return p
		}
	}
	return ""
}
