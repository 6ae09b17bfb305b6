# A second independent client of the simulator: Debian's python3-kubernetes (the official Python client).
# Creates pods, lists them in pages, then watches from the list's resourceVersion until the pod
# "stop-watch" is ADDED, printing one JSON line per step for python-client.test.ts beside it.
# usage: /usr/bin/python3 -u python-client.py KUBECONFIG NAMESPACE
import json
import sys

from kubernetes import client, config, watch


def out(**fields):
    print(json.dumps(fields), flush=True)


def main(kubeconfig, namespace):
    config.load_kube_config(config_file=kubeconfig)
    core = client.CoreV1Api()
    for i in range(5):
        core.create_namespaced_pod(namespace, {
            "metadata": {"name": f"py-{i}", "labels": {"made-by": "python"}},
            "spec": {"containers": [{"name": "c", "image": "busybox:1.36"}]},
        })
    out(step="created", count=5)

    names, pages, token = [], 0, None
    while True:
        page = core.list_namespaced_pod(namespace, limit=2, _continue=token)
        pages += 1
        names += [p.metadata.name for p in page.items]
        token = page.metadata._continue
        if not token:
            break
    rv = page.metadata.resource_version
    out(step="listed", pages=pages, names=names, resourceVersion=rv)

    # The client re-watches by itself from the last resourceVersion when the server ends the stream.
    w = watch.Watch()
    for event in w.stream(core.list_namespaced_pod, namespace, resource_version=rv):
        pod = event["object"]
        out(step="event", type=event["type"], name=pod.metadata.name, resourceVersion=pod.metadata.resource_version,
            phase=pod.status.phase if pod.status else None)
        if pod.metadata.name == "stop-watch" and event["type"] == "ADDED":
            w.stop()
    out(step="done")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
