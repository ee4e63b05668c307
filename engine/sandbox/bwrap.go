package sandbox

import (
	"os"
	"path/filepath"
)

// bwrapArgv is the bubblewrap command line of a policy. Mounts apply in
// order, each over the ones before: the whole file system read-only, fresh
// /dev, /proc and /tmp, an empty home, then what is made available again
// (tools on PATH under the home, the caches, the workspace), then the
// read-only carve-outs inside the workspace, and last the hidden paths.
func bwrapArgv(bwrap string, p *Policy, argv []string) []string {
	a := []string{bwrap,
		"--die-with-parent", // the sandbox dies with the supervisor
		"--unshare-pid",     // and with its PID 1 every process in it, setsid or not
		"--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try",
		"--new-session", // no terminal to push keystrokes into (TIOCSTI)
		"--cap-drop", "ALL",
	}
	if !p.Network {
		a = append(a, "--unshare-net")
	}
	a = append(a, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp")
	if isDir("/var/tmp") {
		a = append(a, "--tmpfs", "/var/tmp")
	}
	if p.Home != "" && !within(p.Home, p.Root) {
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
	a = append(a, "--bind", p.Root, p.Root)
	for _, r := range p.ReadOnly {
		a = append(a, "--ro-bind", r, r)
	}
	for _, h := range p.Hidden {
		if isDir(h) {
			a = append(a, "--perms", "0000", "--tmpfs", h)
		} else {
			a = append(a, "--ro-bind", p.placeholder(), h)
		}
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
