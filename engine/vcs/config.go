package vcs

import (
	"bytes"
	"os"
	"path/filepath"

	gitconfig "github.com/go-git/go-git/v5/plumbing/format/config"
)

// gitConfig is the repository's config over the user's global ones
// (~/.gitconfig and $XDG_CONFIG_HOME/git/config), read with go-git's
// config decoder.
type gitConfig struct {
	layers []*gitconfig.Config // highest precedence first
}

func loadConfig(commonDir string) *gitConfig {
	c := &gitConfig{}
	add := func(path string) {
		raw, err := os.ReadFile(path)
		if err != nil {
			return
		}
		cfg := gitconfig.New()
		if gitconfig.NewDecoder(bytes.NewReader(raw)).Decode(cfg) == nil {
			c.layers = append(c.layers, cfg)
		}
	}
	if commonDir != "" {
		add(filepath.Join(commonDir, "config"))
	}
	for _, p := range globalConfigPaths() {
		add(p)
	}
	return c
}

// globalConfigPaths are git's user-level config files, highest first.
func globalConfigPaths() []string {
	var out []string
	home, _ := os.UserHomeDir()
	if home != "" {
		out = append(out, filepath.Join(home, ".gitconfig"))
	}
	if x := os.Getenv("XDG_CONFIG_HOME"); x != "" {
		out = append(out, filepath.Join(x, "git", "config"))
	} else if home != "" {
		out = append(out, filepath.Join(home, ".config", "git", "config"))
	}
	return out
}

// get returns section[.subsection].key from the first layer that sets it.
func (c *gitConfig) get(section, subsection, key string) string {
	for _, l := range c.layers {
		if !l.HasSection(section) {
			continue
		}
		s := l.Section(section)
		var v string
		if subsection != "" {
			if !s.HasSubsection(subsection) {
				continue
			}
			v = s.Subsection(subsection).Option(key)
		} else {
			v = s.Option(key)
		}
		if v != "" {
			return v
		}
	}
	return ""
}
