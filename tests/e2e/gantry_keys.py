"""CurveZMQ keys for the end-to-end tests, made the way an operator makes them
(`gantryctl keys generate`), and the hub's access list that binds them
(docs/security.md): the hub's keypair, one key per cluster agent bound to its
cluster, and gantryctl keys with a role."""

import os
import subprocess

BIN_DIR = os.environ["GANTRY_BIN_DIR"]


class KeyRing:
    def __init__(self, directory):
        self.directory = directory
        os.makedirs(directory, mode=0o700, exist_ok=True)
        self.agents = {}  # key name -> clusters
        self.admins = {}  # key name -> (role, queues)
        self.hub_key = self.generate("hub")
        self.hub_public_key_file = self.public_file("hub")
        self.add_admin("gantryctl", "admin")

    # ------------------------------------------------------------ files
    def generate(self, name):
        """Writes NAME.key and NAME.pub with gantryctl (once) and returns NAME.key."""
        key = os.path.join(self.directory, f"{name}.key")
        if not os.path.exists(key):
            subprocess.run([os.path.join(BIN_DIR, "gantryctl"), "keys", "generate", name, "--dir",
                            self.directory], check=True, capture_output=True, timeout=30)
        return key

    def public_file(self, name):
        return os.path.join(self.directory, f"{name}.pub")

    def public_key(self, name):
        """The Z85 public key in NAME.pub."""
        with open(self.public_file(name)) as pub:
            for line in pub:
                if "public-key" in line:
                    return line.split('"')[1]
        raise AssertionError(f"no public-key in {self.public_file(name)}")

    def secret_key(self, name):
        with open(os.path.join(self.directory, f"{name}.key")) as key:
            for line in key:
                if "secret-key" in line:
                    return line.split('"')[1]
        raise AssertionError(f"no secret-key in {name}.key")

    @property
    def access_file(self):
        return os.path.join(self.directory, "access.yaml")

    # ------------------------------------------------------------ who may connect
    def add_agent(self, cluster, name=None):
        """A key for `cluster`'s agent, allowed to speak for it; returns its name."""
        name = name or f"agent-{cluster}"
        self.generate(name)
        clusters = self.agents.setdefault(name, [])
        if cluster not in clusters:
            clusters.append(cluster)
        self.write_access()
        return name

    def add_admin(self, name, role, queues=()):
        self.generate(name)
        self.admins[name] = (role, list(queues))
        self.write_access()
        return name

    def remove(self, name):
        self.agents.pop(name, None)
        self.admins.pop(name, None)
        self.write_access()

    def write_access(self):
        lines = ["agents:"] if self.agents else []
        for name, clusters in sorted(self.agents.items()):
            lines += [f"  - name: {name}", f"    public_key_file: {name}.pub",
                      f"    clusters: [{', '.join(clusters)}]"]
        if self.admins:
            lines.append("admins:")
        for name, (role, queues) in sorted(self.admins.items()):
            lines += [f"  - name: {name}", f"    public_key_file: {name}.pub", f"    role: {role}"]
            if queues:
                lines.append(f"    queues: [{', '.join(queues)}]")
        temporary = self.access_file + ".new"
        with open(temporary, "w") as out:
            out.write("\n".join(lines) + "\n")
        os.replace(temporary, self.access_file)  # the hub never reads half a file

    # ------------------------------------------------------------ command lines
    def hub_args(self):
        return ["--key", self.hub_key, "--access", self.access_file]

    def agent_args(self, cluster, name=None):
        name = name or self.add_agent(cluster)
        return ["--hub-key", self.hub_public_key_file, "--key", self.generate(name)]

    def ctl_env(self, name="gantryctl"):
        """Environment for a gantryctl that uses key `name`."""
        return {"GANTRY_HUB_KEY": self.hub_public_key_file, "GANTRY_KEY": self.generate(name)}
