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
			if info, ok := debug.ReadBuildInfo(); ok {
				for _, s := range info.Settings {
					if s.Key == "vcs.revision" {
						data["commit"] = s.Value
					}
				}
			}
			env := envelope.New("version", "aw "+Version+" ("+envelope.Protocol+")", data)
			env.Retention.Importance = envelope.Low
			a.emit(env)
		},
	}
}
