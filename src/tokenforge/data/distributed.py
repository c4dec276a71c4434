"""placeholder"""
def ray_encode(*a, **k): raise NotImplementedError
class RayEncoder: pass
def hf_encode(*a, **k): raise NotImplementedError
