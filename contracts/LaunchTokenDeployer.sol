// SPDX-License-Identifier: MIT
pragma solidity 0.8.26;

import {LaunchToken} from "./LaunchToken.sol";
import {TaxToken} from "./TaxToken.sol";

/// @title LaunchTokenDeployer
/// @notice Creates launch tokens with CREATE2 for its factory (its creator): plain launch tokens, or tax
/// tokens for a tax factory. Keeping the token's creation code here keeps the factory small; clients
/// predict addresses from `initCodeHash`.
contract LaunchTokenDeployer {
    address public immutable factory;
    bool public immutable taxTokens;

    error NotFactory();

    constructor(bool taxTokens_) {
        factory = msg.sender;
        taxTokens = taxTokens_;
    }

    function initCodeHash(string calldata name, string calldata symbol, uint256 supply)
        public
        view
        returns (bytes32)
    {
        bytes memory code = taxTokens ? type(TaxToken).creationCode : type(LaunchToken).creationCode;
        return keccak256(abi.encodePacked(code, abi.encode(name, symbol, supply, factory)));
    }

    function predict(bytes32 salt, string calldata name, string calldata symbol, uint256 supply)
        external
        view
        returns (address)
    {
        bytes32 h = keccak256(abi.encodePacked(bytes1(0xff), address(this), salt, initCodeHash(name, symbol, supply)));
        return address(uint160(uint256(h)));
    }

    function deploy(bytes32 salt, string calldata name, string calldata symbol, uint256 supply)
        external
        returns (address)
    {
        if (msg.sender != factory) revert NotFactory();
        if (taxTokens) return address(new TaxToken{salt: salt}(name, symbol, supply, factory));
        return address(new LaunchToken{salt: salt}(name, symbol, supply, factory));
    }
}
