package commands

import (
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"

	"github.com/agentic-workspace/aw/engine/envelope"
)

func (a *app) versionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print aw's version",
		Args:  cobra.NoArgs,
		Run: func(cmd *cobra.Command, args []string) {
			data := map[string]string{"version": Version, "go": runtime.Version(), "os": runtime.GOOS, "arch": runtime.GOARCH, "protocol": envelope.Protocol}
			// The commit and its date come from the build info (go build in
			// a git checkout stamps them); a modified tree says so.
			if info, ok := debug.ReadBuildInfo(); ok {
				for _, s := range info.Settings {
					switch s.Key {
					case "vcs.revision":
						data["commit"] = s.Value
					case "vcs.time":
						data["commitDate"] = s.Value
					case "vcs.modified":
						data["modified"] = s.Value
					}
				}
			}
			summary := "aw " + Version
			if c := data["commit"]; len(c) >= 12 {
				summary += ", commit " + c[:12]
				if data["modified"] == "true" {
					summary += " (modified)"
				}
				if d := data["commitDate"]; d != "" {
					summary += " of " + d
				}
			}
			env := envelope.New("version", summary+" ("+envelope.Protocol+", "+runtime.Version()+")", data)
			env.Retention.Importance = envelope.Low
			a.emit(env)
		},
	}
}
