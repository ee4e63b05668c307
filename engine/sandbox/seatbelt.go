package sandbox

import (
	"fmt"
	"strings"
)

// SeatbeltProfile is the macOS sandbox-exec profile of a policy, in the
// manner of the profiles Codex and Claude Code use: deny by default, allow
// process creation and reads, deny reads of the home and the hidden
// paths (the toolchain caches and PATH tools under the home allowed
// again), writes only to the workspace (minus its read-only carve-outs),
// the private caches and temp directories, and the network only when the
// policy allows it. In SBPL the last matching rule decides, so the order
// of the sections below is the order of precedence.
func SeatbeltProfile(p *Policy) string {
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format+"\n", args...) }
	w("(version 1)")
	w("(deny default)")
	w("(allow process-exec process-fork)")
	w("(allow signal (target same-sandbox))")
	w("(allow sysctl-read)")
	w("(allow mach-lookup)")
	w("(allow ipc-posix-shm ipc-posix-sem)")
	w("(allow pseudo-tty)")
	w("(allow file-ioctl (literal \"/dev/null\") (literal \"/dev/tty\"))")
	w("; reads: everything but the home and the hidden paths")
	w("(allow file-read*)")
	if p.replacesHome() {
		w("(deny file-read* (subpath %s))", sbString(p.Home))
		w("(allow file-read-metadata (literal %s))", sbString(p.Home))
	}
	var again []string
	for _, d := range p.PathDirs {
		again = append(again, d)
	}
	for _, c := range p.Caches {
		again = append(again, c.Path)
	}
	if p.Workspace != Invisible {
		again = append(again, p.Root)
	}
	again = append(again, p.State)
	again = append(again, p.Writable...)
	w("(allow file-read* %s)", subpaths(again))
	if p.Workspace == Invisible {
		w("; the workspace is not visible (but the process's own directories in it)")
		w("(deny file-read* (subpath %s))", sbString(p.Root))
		if len(p.Writable) > 0 {
			w("(allow file-read* %s)", subpaths(p.Writable))
		}
	}
	w("; writes: the workspace (when the process may write it), its own directories, the private caches and temporary directories")
	writable := []string{p.State}
	if p.Workspace == ReadWrite {
		writable = []string{p.Root, p.State}
	}
	for _, c := range p.Caches {
		if c.Writable {
			writable = append(writable, c.Path)
		}
	}
	w("(allow file-write* %s (subpath \"/private/tmp\") (subpath \"/private/var/folders\") (literal \"/dev/null\") (literal \"/dev/tty\"))", subpaths(writable))
	if len(p.ReadOnly) > 0 {
		w("; read-only inside the workspace: .git, .agentic, protected paths")
		w("(deny file-write* %s)", subpaths(p.ReadOnly))
	}
	if len(p.Writable) > 0 {
		w("; the process's own directories, writable wherever they lie")
		w("(allow file-write* %s)", subpaths(p.Writable))
	}
	w("; unreadable: denied paths and aw's user configuration")
	w("(deny file-read* file-write* (literal %s)%s)", sbString(p.placeholder()), prefixed(" ", subpaths(p.Hidden)))
	if p.Network {
		w("(allow network*)")
	} else {
		w("; no network: only local unix sockets")
		w("(allow network* (remote unix-socket))")
	}
	return b.String()
}

func subpaths(paths []string) string {
	parts := make([]string, 0, len(paths))
	for _, p := range paths {
		if p != "" {
			parts = append(parts, "(subpath "+sbString(p)+")")
		}
	}
	return strings.Join(parts, " ")
}

func prefixed(pre, s string) string {
	if s == "" {
		return ""
	}
	return pre + s
}

// sbString quotes a path for SBPL: a string literal with \ and " escaped.
func sbString(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}
