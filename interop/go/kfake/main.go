// Command kfake starts franz-go's in-process fake Kafka cluster (kfake) on loopback, prints the
// address of its broker on standard output ("127.0.0.1:PORT", one line) and stays up until it
// receives SIGTERM or SIGINT, or until -max-life passes. It sends no request of its own.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
)

func main() {
	port := flag.Int("port", 0, "loopback port for the broker (0: any free port)")
	maxLife := flag.Duration("max-life", 2*time.Hour, "stop by itself after this long")
	flag.Parse()

	c, err := kfake.NewCluster(
		kfake.NumBrokers(1),
		kfake.Ports(*port),
		kfake.AllowAutoTopicCreation(),
		kfake.SeedTopics(1, "kipcheck-interop"),
	)
	if err != nil {
		fmt.Fprintln(os.Stderr, "kfake:", err)
		os.Exit(1)
	}
	defer c.Close()
	addrs := c.ListenAddrs()
	if len(addrs) == 0 {
		fmt.Fprintln(os.Stderr, "kfake: no listen address")
		os.Exit(1)
	}
	fmt.Println(addrs[0])

	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, syscall.SIGINT)
	select {
	case <-sig:
	case <-time.After(*maxLife):
		fmt.Fprintln(os.Stderr, "kfake: max-life passed, stopping")
	}
}
