// Command client is a franz-go (kgo) client for interop runs. One-shot form (`client BOOTSTRAP`):
// it bootstraps against the address given as its first argument, produces one record to the
// interop topic (ApiVersions, Metadata, InitProducerId, Produce), prints the partition and offset
// and exits 0. It exits 1 on failure, 2 on bad usage; every step is bounded by -timeout. Live form
// (`client -config FILE [-profile FILE] [-bootstrap HOST:PORT]`): see live.go.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

const defaultTopic = "kipcheck-interop"

func main() {
	timeout := flag.Duration("timeout", 20*time.Second, "bound on the whole run")
	topic := flag.String("topic", defaultTopic, "topic to produce to")
	config := flag.String("config", "", "live form: the client.properties file kipcheck writes")
	flag.String("profile", "", "live form: the spec profile (not used: franz-go has no KIP-1324)")
	bootstrap := flag.String("bootstrap", "", "live form: the address when the file has no bootstrap.servers")
	flag.Parse()
	if *config != "" {
		os.Exit(live(*config, *bootstrap))
	}
	if flag.NArg() < 1 {
		fmt.Fprintln(os.Stderr, "usage: client [-timeout D] [-topic T] BOOTSTRAP | client -config FILE [-profile FILE] [-bootstrap HOST:PORT]")
		os.Exit(2)
	}
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()

	cl, err := kgo.NewClient(
		kgo.SeedBrokers(flag.Arg(0)),
		kgo.ClientID("kipcheck-franz-go"),
		kgo.AllowAutoTopicCreation(),
		kgo.RequestTimeoutOverhead(2*time.Second),
		kgo.RecordDeliveryTimeout(*timeout/2),
		kgo.ProduceRequestTimeout(*timeout/4),
		kgo.RetryTimeout(*timeout/2),
		kgo.DialTimeout(2*time.Second),
	)
	if err != nil {
		fmt.Fprintln(os.Stderr, "franz-go: client:", err)
		os.Exit(1)
	}
	defer cl.Close()

	r := &kgo.Record{Topic: *topic, Key: []byte("k"), Value: []byte("hello from kipcheck interop")}
	if err := cl.ProduceSync(ctx, r).FirstErr(); err != nil {
		fmt.Fprintln(os.Stderr, "franz-go: FAILED: produce:", err)
		os.Exit(1)
	}
	fmt.Printf("franz-go: %s-%d@%d\n", r.Topic, r.Partition, r.Offset)
}
