package sandbox

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func testPolicy(t *testing.T) *Policy {
	t.Helper()
	base := t.TempDir()
	root := filepath.Join(base, "ws")
	p := &Policy{
		Root:     root,
		ReadOnly: []string{root + "/.git", root + "/.agentic", root + "/deploy.key"},
		Hidden:   []string{root + "/.env", root + "/secrets"},
		Home:     filepath.Join(base, "home"),
		PathDirs: []string{filepath.Join(base, "home", "go", "bin")},
		State:    filepath.Join(base, "cache", "aw", "sandbox", "0123"),
		Cwd:      root + "/sub",
	}
	p.Caches = Caches(p.State, p.Home, func(string) string { return "" })
	for _, d := range []string{root + "/.git", root + "/.agentic", root + "/secrets", root + "/sub"} {
		os.MkdirAll(d, 0o755)
	}
	os.WriteFile(root+"/.env", []byte("x"), 0o600)
	os.WriteFile(root+"/deploy.key", []byte("x"), 0o600)
	return p
}

// TestWrapModes: off and auto-without-a-sandbox run argv unchanged and say
// why; require without a sandbox is refused.
func TestWrapModes(t *testing.T) {
	p := testPolicy(t)
	argv := []string{"/bin/true"}
	none := Availability{Mechanism: None, Reason: "nothing here"}
	got, r, err := WrapWith(none, p, Auto, argv)
	if err != nil || !slices.Equal(got, argv) || r.Mechanism != None || r.Reason != "nothing here" || !r.Network {
		t.Fatalf("auto without a sandbox: %v %+v %v", got, r, err)
	}
	if !strings.Contains(r.Summary(), "sandbox: none (nothing here)") {
		t.Fatalf("summary: %s", r.Summary())
	}
	var d *Denied
	if _, _, err := WrapWith(none, p, Require, argv); !errors.As(err, &d) || !strings.Contains(d.Reason, "nothing here") {
		t.Fatalf("require without a sandbox: %v", err)
	}
	got, r, err = WrapWith(Availability{Mechanism: Bubblewrap, Path: "/usr/bin/bwrap"}, p, Off, argv)
	if err != nil || !slices.Equal(got, argv) || r.Mechanism != None || !strings.Contains(r.Reason, "off") {
		t.Fatalf("off: %v %+v %v", got, r, err)
	}
	// Require with a sandbox wraps, and prepares the private state.
	got, r, err = WrapWith(Availability{Mechanism: Bubblewrap, Path: "/usr/bin/bwrap"}, p, Require, argv)
	if err != nil || got[0] != "/usr/bin/bwrap" || got[len(got)-1] != "/bin/true" || r.Mechanism != Bubblewrap {
		t.Fatalf("require with bubblewrap: %v %+v %v", got, r, err)
	}
	if fi, err := os.Stat(p.placeholder()); err != nil || fi.Mode().Perm() != 0 {
		t.Fatalf("the unreadable placeholder: %v %v", fi, err)
	}
}

// index finds the position of the sequence seq in a.
func index(a []string, seq ...string) int {
	for i := 0; i+len(seq) <= len(a); i++ {
		if slices.Equal(a[i:i+len(seq)], seq) {
			return i
		}
	}
	return -1
}

// TestBwrapArgv: the mounts are in the order that makes each carve-out
// win over what it lies in, and the network is unshared unless allowed.
func TestBwrapArgv(t *testing.T) {
	p := testPolicy(t)
	a := bwrapArgv("bwrap", p, []string{"sh", "-c", "x"})
	order := [][]string{
		{"--ro-bind", "/", "/"},
		{"--tmpfs", "/tmp"},
		{"--perms", "0700", "--tmpfs", p.Home},
		{"--ro-bind", p.PathDirs[0], p.PathDirs[0]},
		{"--bind", p.Root, p.Root},
		{"--ro-bind", p.Root + "/.git", p.Root + "/.git"},
		{"--ro-bind", p.Root + "/deploy.key", p.Root + "/deploy.key"},
		{"--ro-bind", p.placeholder(), p.Root + "/.env"},
		{"--perms", "0000", "--tmpfs", p.Root + "/secrets"},
		{"--chdir", p.Cwd, "--", "sh", "-c", "x"},
	}
	last := -1
	for _, seq := range order {
		i := index(a, seq...)
		if i < 0 || i < last {
			t.Fatalf("%v missing or out of order (at %d, after %d) in %v", seq, i, last, a)
		}
		last = i
	}
	for _, flag := range []string{"--die-with-parent", "--unshare-pid", "--new-session", "--unshare-net"} {
		if !slices.Contains(a, flag) {
			t.Errorf("%s missing: %v", flag, a)
		}
	}
	if index(a, "--cap-drop", "ALL") < 0 || index(a, "--setenv", "GOCACHE", filepath.Join(filepath.Dir(p.State), "cache", "go-build")) < 0 {
		t.Errorf("capabilities or cache environment missing: %v", a)
	}
	p.Network = true
	if slices.Contains(bwrapArgv("bwrap", p, []string{"true"}), "--unshare-net") {
		t.Errorf("commands.network true must keep the network")
	}
	// A workspace inside the home: the home is still replaced (its
	// secrets stay out of sight), and the workspace mounted again over it.
	p.Home = filepath.Dir(p.Root)
	a = bwrapArgv("bwrap", p, []string{"true"})
	if h, r := index(a, "--tmpfs", p.Home), index(a, "--bind", p.Root, p.Root); h < 0 || r < h {
		t.Errorf("a home holding the workspace is replaced first, the workspace bound after: %v", a)
	}
	// A home that is the workspace (or inside it) cannot be replaced
	// without hiding the workspace: it is kept.
	p.Home = p.Root
	if index(bwrapArgv("bwrap", p, []string{"true"}), "--tmpfs", p.Home) >= 0 {
		t.Errorf("a home inside the workspace must not be replaced")
	}
	// /run (the host's service sockets) is replaced.
	if index(a, "--tmpfs", "/run") < 0 && isDir("/run") {
		t.Errorf("/run must be private: %v", a)
	}
}

// TestBwrapProcess: a non-command process (a browser) sees no workspace,
// writes only its own directory (after every carve-out, so it wins even
// inside .agentic), and, detached, neither dies with its parent nor leaves
// the process group its caller signals.
func TestBwrapProcess(t *testing.T) {
	p := testPolicy(t)
	own := p.Root + "/.agentic/browser/s1"
	p.Workspace, p.Writable, p.Detached, p.Network, p.Cwd = Invisible, []string{own}, true, true, own
	a := bwrapArgv("bwrap", p, []string{"chromium"})
	for _, seq := range [][]string{{"--tmpfs", p.Root}, {"--bind", own, own}, {"--chdir", own}} {
		if index(a, seq...) < 0 {
			t.Fatalf("%v missing in %v", seq, a)
		}
	}
	if index(a, "--tmpfs", p.Root) > index(a, "--bind", own, own) || index(a, "--ro-bind", p.Root+"/.agentic", p.Root+"/.agentic") > index(a, "--bind", own, own) {
		t.Errorf("the own directory must be mounted after the workspace and its carve-outs: %v", a)
	}
	for _, flag := range []string{"--die-with-parent", "--new-session", "--unshare-net"} {
		if slices.Contains(a, flag) {
			t.Errorf("%s must not be set for a detached process with network: %v", flag, a)
		}
	}
	if index(a, "--bind", p.Root, p.Root) >= 0 || index(a, "--ro-bind", p.placeholder(), p.Root+"/.env") >= 0 {
		t.Errorf("an invisible workspace is neither bound nor carved: %v", a)
	}
	_, r, err := WrapWith(Availability{Mechanism: Bubblewrap, Path: "bwrap"}, p, Auto, []string{"chromium"})
	if err != nil || r.Workspace != "hidden" || !r.Network || !strings.Contains(r.Summary(), "workspace hidden") || !strings.Contains(strings.Join(r.Enforced, "\n"), "workspace not visible") {
		t.Fatalf("report of an invisible workspace: %+v %v", r, err)
	}
}

// TestSeatbeltProfile: the macOS profile (not run here: there is no
// sandbox-exec on Linux) denies by default, and its later rules — the
// read-only carve-outs, the hidden paths — come after the grants they
// narrow, since in SBPL the last matching rule decides.
func TestSeatbeltProfile(t *testing.T) {
	p := testPolicy(t)
	p.Hidden = append(p.Hidden, `/odd "quoted" \path`)
	prof := SeatbeltProfile(p)
	want := []string{
		"(version 1)",
		"(deny default)",
		"(allow file-read*)",
		`(deny file-read* (subpath "` + p.Home + `"))`,
		`(allow file-read* (subpath "` + p.PathDirs[0] + `")`,
		`(allow file-write* (subpath "` + p.Root + `")`,
		`(deny file-write* (subpath "` + p.Root + `/.git") (subpath "` + p.Root + `/.agentic") (subpath "` + p.Root + `/deploy.key"))`,
		`(subpath "` + p.Root + `/.env")`,
		`(subpath "/odd \"quoted\" \\path")`,
		"(allow network* (remote unix-socket))",
	}
	last := -1
	for _, w := range want {
		i := strings.Index(prof, w)
		if i < 0 || i < last {
			t.Fatalf("%q missing or out of order in:\n%s", w, prof)
		}
		last = i
	}
	if strings.Contains(prof, "(allow network*)") {
		t.Fatalf("no network unless the policy allows it:\n%s", prof)
	}
	p.Network = true
	if !strings.Contains(SeatbeltProfile(p), "(allow network*)") {
		t.Fatalf("commands.network true allows the network")
	}
	if strings.Count(prof, "(") != strings.Count(prof, ")") {
		t.Fatalf("unbalanced profile:\n%s", prof)
	}
}

// TestHiddenPathDirs: PATH entries the sandbox hides are kept, once;
// others and the home itself are not.
func TestHiddenPathDirs(t *testing.T) {
	home := t.TempDir()
	bin := filepath.Join(home, "bin")
	os.MkdirAll(bin, 0o755)
	got := HiddenPathDirs(strings.Join([]string{bin, "/usr/bin", home, "relative", bin}, string(os.PathListSeparator)), home)
	if len(got) != 1 || got[0] != bin {
		t.Fatalf("HiddenPathDirs: %v", got)
	}
}
