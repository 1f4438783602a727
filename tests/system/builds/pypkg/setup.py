from setuptools import setup
setup(name="bbpkg", version="1.0", packages=["bbpkg"])
