package sandbox

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Detect finds the strongest sandbox this machine offers for a workspace:
// bubblewrap when it is installed and can create its namespaces, else
// Landlock, else none with the reason.
func Detect(p *Policy) Availability {
	bw := lookBwrap(os.Getenv("PATH"), p.Root)
	var why []string
	if bw == "" {
		why = append(why, "bubblewrap is not installed (apt-get install bubblewrap, dnf install bubblewrap)")
	} else if err := probeBwrap(bw, p); err != nil {
		why = append(why, err.Error())
	} else {
		return Availability{Mechanism: Bubblewrap, Path: bw}
	}
	abi, llWhy := landlockABI()
	if abi > 0 {
		return Availability{Mechanism: Landlock, ABI: abi, Reason: strings.Join(why, "; ")}
	}
	why = append(why, llWhy)
	return Availability{Mechanism: None, Reason: strings.Join(why, "; ")}
}

// probeBwrap runs bwrap once with the namespaces the sandbox uses. A
// success is remembered (keyed by the executable and the boot), so later
// commands pay nothing for it; a failure is probed again next time. If a
// remembered bwrap stops working the command fails with bwrap's message:
// it never runs unconfined by surprise.
func probeBwrap(bw string, p *Policy) error {
	key := probeKey(bw)
	mark := ""
	if p.State != "" {
		mark = filepath.Join(filepath.Dir(p.State), "bwrap.ok")
		if got, err := os.ReadFile(mark); err == nil && key != "" && string(got) == key {
			return nil
		}
	}
	var stderr bytes.Buffer
	cmd := exec.Command(bw, "--die-with-parent", "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-net",
		"--cap-drop", "ALL", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp", "--", "true")
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = err.Error()
		}
		return fmt.Errorf("bubblewrap (%s) cannot create its namespaces here: %s (user namespaces may be disabled: sysctl kernel.unprivileged_userns_clone, or an AppArmor policy)", bw, firstLine(msg))
	}
	if mark != "" && key != "" {
		os.MkdirAll(filepath.Dir(mark), 0o700)
		os.WriteFile(mark, []byte(key), 0o600)
	}
	return nil
}

func probeKey(bw string) string {
	fi, err := os.Stat(bw)
	if err != nil {
		return ""
	}
	boot, _ := os.ReadFile("/proc/sys/kernel/random/boot_id")
	return fmt.Sprintf("%s %d %d %s", bw, fi.Size(), fi.ModTime().UnixNano(), strings.TrimSpace(string(boot)))
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
